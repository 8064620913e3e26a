/**
 * Fact verdicts: their shape (`FactVerdict`: survives, lost, never present, and the event that
 * lost the last copy) and their wording. Types and words only, so the page can import it without
 * the finder. Source: SPEC §6 "Fact finder".
 */
import type { Origin, ProvenanceStage, Role, StageId } from '../model'
import type { NeededAfterLoss } from './needed'

/** What a fact is matched as: a verbatim string, or a regular expression. */
export type FactQuery = string | RegExp

/** How an after message holds a fact. */
export type KeptAs = 'verbatim' | 'summary' | 'pinned'

/**
 * The agent's own recorded compaction that lost a fact, as its record states it: `atIndex` the
 * Before index of the first message after the boundary, `trigger` (`auto`, `manual`, …) and
 * `tokensBefore` (the agent's own count, tokens of its tokenizer) when recorded.
 */
export interface RecordedAt {
  atIndex: number
  /** Its 1-based number among the file's recorded compactions, when known. */
  compaction?: number
  trigger?: string
  tokensBefore?: number
}

/**
 * What replaced the last copy of a lost fact. For a summary: `text` the summary that came back
 * (the pass's, or the agent's recorded one), `promptLine` the summarizer prompt's line that
 * carried the fact (`[12] user: …`: the copy's own line, else the first line holding it, e.g. in
 * the previous summary), `inPrompt` whether the prompt held it at all (both absent when the pass
 * or its prompt is unknown), `recorded` the agent's compaction when it was one.
 */
type Replacement =
  | { kind: 'summary'; summaryId: string; text: string; promptLine?: string; inPrompt?: boolean; recorded?: RecordedAt }
  | { kind: 'placeholder'; text: string }
  | { kind: 'back-reference'; firstId: string; text: string; targetEvicted: boolean }
  | { kind: 'slimmed'; text: string }
  | { kind: 'dropped'; reason: string }
  | { kind: 'changed'; text: string }

/** Where one copy of a fact (a before message holding it) was lost. */
export interface LossEvent {
  /** The before message whose copy was lost. */
  beforeId: string
  stage: StageId | 'pipeline' | 'recorded'
  /** The pass of a summarizing stage, when a pass lost it. */
  pass?: number
  replacedBy: Replacement
}

/**
 * One event of a fact's history (`factHistory`, history.ts), in message order: `entered` (its first
 * Before message), `lost` (a pass or the agent's recorded compaction took it out of the context:
 * `atMessage` the turn end it fired at, `recorded` the agent's record; a loss outside the passes,
 * e.g. pruning, has neither), `needed` (a later user or assistant message asked for it: verbatim
 * or by a back-reference, `phrase` the sentence) and `back` (a later message held it again, e.g. a
 * tool result re-reading it). Messages by Before id and index.
 */
export type FactEvent =
  | { kind: 'entered'; messageId: string; index: number; role: Role }
  | {
      kind: 'lost'
      stage: ProvenanceStage | 'pipeline'
      pass?: number
      atMessage?: number
      recorded?: RecordedAt
    }
  | { kind: 'needed'; messageId: string; index: number; role: Role; how: NeededAfterLoss['how']; phrase?: string }
  | { kind: 'back'; messageId: string; index: number; role: Role }

/** The verdict on one fact. Source: SPEC §6 "Fact finder". */
export interface FactVerdict {
  query: string
  verdict: 'survives' | 'lost' | 'never-present'
  /** Before messages holding the fact. */
  beforeIds: string[]
  /** After messages holding it, and how. Priority when listing: verbatim, pinned, summary. */
  where: { id: string; as: KeptAs }[]
  /** For `lost`: the event that dropped the last copy. */
  lost?: LossEvent
  /** For `lost`: every copy's loss, in pipeline order. */
  events?: LossEvent[]
  /**
   * The fact's history through the run (`factHistory`), when it was worked out: every loss, the
   * messages that asked for it and those that brought it back. The verdict's sentence tells it
   * when it holds a loss.
   */
  history?: FactEvent[]
  /**
   * One sentence for people: `verdictSentence` with messages named by position
   * (`positionNames`: `Before #21`, `Before #41 → After #7`), as the page and the CLI word it.
   */
  explanation: string
}

/**
 * The name of one compaction pass, the same in verdicts, chips, boundaries and the pass list:
 * `pass 2` for the rolling `summarize` stage (its pass numbers are the ones people talk about),
 * `compaction 2` for the agent's own recorded compactions (their number in the file), the stage
 * name for any other stage (`insert-then-compress`, `insert-then-compress pass 2`), so two
 * stages' pass 1 never read alike.
 */
export function passName(stage: string, pass: number): string {
  if (stage === 'summarize') return `pass ${pass}`
  if (stage === 'recorded') return `compaction ${pass}`
  return pass === 1 ? stage : `${stage} pass ${pass}`
}

/** How a verdict sentence names messages and passes (`positionNames`). */
export interface VerdictNames {
  /** A Before message, by id: `Before #41`, or the id itself. */
  before: (id: string) => string
  /**
   * An After message holding the fact: `Before #41 → After #7`, `After #0 (summary of pass 2)`,
   * `After #1 (pinned facts)`, or the id.
   */
  after: (id: string) => string
  /** The Before indices `[from, upto)` pass `pass` of `stage` folded; undefined when unknown. */
  passSpan: (stage: string, pass: number) => { from: number; upto: number } | undefined
}

/** What `verdictSentence` reads: a `FactVerdict`, or the worker's view of one. */
export interface VerdictWords {
  verdict: FactVerdict['verdict']
  where: readonly { id: string; as: KeptAs }[]
  lost?: LossEvent
  /** Copies whose loss was traced (`events.length`); "the last of N copies" above 1. */
  copiesLost: number
  /** The fact's history (`FactVerdict.history`); told when it holds a loss. */
  history?: readonly FactEvent[] | undefined
}

/** How many names a verdict lists before "+N more". */
const LIST_CAP = 3

function listOf(labels: readonly string[]): string {
  const shown = labels.slice(0, LIST_CAP).join(', ')
  return labels.length > LIST_CAP ? `${shown}, +${labels.length - LIST_CAP} more` : shown
}

const grouped = new Intl.NumberFormat('en-US')

/**
 * The name of a compaction the agent recorded itself, as its record states it: `the agent's
 * compaction 1 (message 109, auto, 166,311 tokens)` (number, boundary, trigger, the agent's own
 * token count), `the agent's compaction at message 28 (manual)` when its number is unknown. The
 * one wording of verdicts, histories and re-work.
 */
export function recordedCompactionName(at: RecordedAt): string {
  const how = [at.trigger, at.tokensBefore === undefined ? '' : `${grouped.format(at.tokensBefore)} tokens`].filter(Boolean)
  if (at.compaction === undefined) return `the agent's compaction at message ${at.atIndex}${how.length > 0 ? ` (${how.join(', ')})` : ''}`
  return `the agent's compaction ${at.compaction} (${[`message ${at.atIndex}`, ...how].join(', ')})`
}

/**
 * Where a loss happened: `pass 2 of summarize`, `dedupe`, `the pipeline`, or the agent's own
 * compaction (`recordedCompactionName`; `the agent's recorded compaction` without its record).
 * The one wording of a loss's place (verdicts, histories, warnings).
 */
export function lossPlace(e: { stage: string; pass?: number | undefined; replacedBy?: Replacement; recorded?: RecordedAt | undefined }): string {
  if (e.stage === 'pipeline') return 'the pipeline'
  if (e.stage === 'recorded') {
    const at = e.recorded ?? (e.replacedBy?.kind === 'summary' ? e.replacedBy.recorded : undefined)
    return at ? recordedCompactionName(at) : "the agent's recorded compaction"
  }
  return e.pass !== undefined ? `pass ${e.pass} of ${e.stage}` : e.stage
}

/** How a history tells the way a message needed a fact (a verbatim repeat needs no words). */
const NEEDED_HOW: Readonly<Record<string, string>> = {
  'back-reference': ' (referred back to)',
  'asked-again': ' (the agent asked for it again)',
}

/**
 * A fact's history as one clause, or undefined when it holds no loss: `lost at pass 2 of
 * summarize (at #40); asked for at Before #175; back at Before #176 (tool); lost again at the
 * agent's compaction 3 (message 400, auto)`. Its first appearance is not told (the verdict names
 * the messages). Messages by `names`.
 */
export function historySentence(
  history: readonly FactEvent[] | undefined,
  names: Pick<VerdictNames, 'before'>,
): string | undefined {
  const parts = historyParts(history, names)
  return parts.length > 0 ? parts.map((p) => p.text).join('; ') : undefined
}

/** The events `historySentence` tells, each as its clause; none when the history holds no loss. */
function historyParts(
  history: readonly FactEvent[] | undefined,
  names: Pick<VerdictNames, 'before'>,
): { kind: FactEvent['kind']; text: string }[] {
  if (!history || !history.some((e) => e.kind === 'lost')) return []
  let losses = 0
  const out: { kind: FactEvent['kind']; text: string }[] = []
  for (const e of history) {
    if (e.kind === 'lost') {
      const at = e.stage !== 'recorded' && e.atMessage !== undefined ? ` (at #${e.atMessage})` : ''
      out.push({ kind: e.kind, text: `${losses++ > 0 ? 'lost again' : 'lost'} at ${lossPlace(e)}${at}` })
    } else if (e.kind === 'needed') {
      out.push({ kind: e.kind, text: `asked for at ${names.before(e.messageId)}${NEEDED_HOW[e.how] ?? ''}` })
    } else if (e.kind === 'back') {
      out.push({ kind: e.kind, text: `back at ${names.before(e.messageId)} (${e.role === 'tool' ? 'a tool result' : e.role})` })
    }
  }
  return out
}

/**
 * The verdict as one sentence, the one wording of the page, the CLI and `explanation`:
 * - `survives in 3 messages after (Before #41 → After #7, After #0 (summary of pass 2))`, or
 *   `survives only in After #0 (summary of pass 1)` when no verbatim copy is left;
 * - `lost in pass 2 of summarize (the last of 3 copies) — replaced by the summary of messages
 *   0–21`: the event that lost the last copy; `lost in the agent's compaction 1 (message 28,
 *   auto, 150,000 tokens) — its summary omits it` for the agent's recorded compaction;
 * - `never present in the Before` (and, when the After holds it anyway, which message does).
 * Messages are named by `names`. Pure: renders the verdict, never searches. Source: SPEC §6.
 */
export function verdictSentence(v: VerdictWords, names: VerdictNames): string {
  const base = baseVerdictSentence(v, names)
  const parts = historyParts(v.history, names)
  // One loss and nothing else is what the plain sentence says, with what replaced it.
  if (parts.length === 0 || (v.verdict === 'lost' && parts.length === 1)) return base
  if (v.verdict !== 'lost') return `${base} — ${parts.map((p) => p.text).join('; ')}`
  // A lost fact's story: its last loss is the one the sentence names, told with what replaced it.
  const tail = base.indexOf(' — ')
  const last = parts.map((p) => p.kind).lastIndexOf('lost')
  return parts.map((p, i) => (i === last && tail >= 0 ? `${p.text}${base.slice(tail)}` : p.text)).join('; ')
}

/** `verdictSentence` without the history. */
function baseVerdictSentence(v: VerdictWords, names: VerdictNames): string {
  const held = v.where.map((w) => names.after(w.id))
  if (v.verdict === 'never-present') {
    return held.length > 0
      ? `never present in the Before — yet the After holds it (${listOf(held)})`
      : 'never present in the Before'
  }
  if (v.verdict === 'survives') {
    return v.where.some((w) => w.as === 'verbatim')
      ? `survives in ${v.where.length} message${v.where.length === 1 ? '' : 's'} after (${listOf(held)})`
      : `survives only in ${listOf(held)}`
  }
  const e = v.lost
  if (!e) return 'lost — no recorded step explains it'
  const lost = `lost in ${lossPlace(e)}${v.copiesLost > 1 ? ` (the last of ${v.copiesLost} copies)` : ''}`
  const r = e.replacedBy
  switch (r.kind) {
    case 'summary': {
      if (e.stage === 'recorded') return `${lost} — its summary omits it`
      const span = e.pass === undefined ? undefined : names.passSpan(e.stage, e.pass)
      const what = span && span.upto > span.from ? `the summary of messages ${span.from}–${span.upto - 1}` : 'a summary that omits it'
      return `${lost} — replaced by ${what}`
    }
    case 'placeholder':
      return `${lost} — replaced by a placeholder in ${names.before(e.beforeId)}`
    case 'back-reference':
      return (
        `${lost} — replaced by a back-reference to ${names.before(r.firstId)}` +
        (r.targetEvicted ? ', whose original was evicted too' : '')
      )
    case 'slimmed':
      return `${lost} — replaced by a slimmed ${names.before(e.beforeId)} without it`
    case 'dropped':
      return `${lost} — ${names.before(e.beforeId)} dropped (${r.reason})`
    case 'changed':
      return `${lost} — replaced by a changed ${names.before(e.beforeId)} without it`
  }
}

/** Which kind of summarizer wrote a simulated pass's summary, as `lossReason` words it. */
export type SummarizerKind = 'llm' | 'extractive'

/**
 * Why the last copy of a lost fact went, in one sentence, or undefined when the verdict says all
 * that is known (slimmed, dropped, changed, no loss traced):
 * - a pass's summary: `it was in the prompt but not in the answer` (an LLM summarizer), `it was
 *   in the prompt, but the extractive summary kept other lines`, `it was not in the prompt: Before
 *   #13 reached the summarizer already without it` (an earlier stage's placeholder: its prompt line
 *   shows it), or `it was not in the prompt: the summarizer never saw it (cut or left out to fit
 *   its window)`; the agent's own compaction: `it
 *   was in the messages the agent summarized, but not in the summary it wrote`;
 * - pruning: `Before #12 was pruned: a placeholder took its place`;
 * - a back-reference: `Before #12 became a back-reference to its first occurrence, Before #4,
 *   which left the context too` (or `…, Before #4` while that is still in the After).
 * The prompt line and the texts themselves are on `LossEvent.replacedBy`. Messages named by `names`.
 */
export function lossReason(v: VerdictWords, names: VerdictNames, summarizer: SummarizerKind): string | undefined {
  const e = v.verdict === 'lost' ? v.lost : undefined
  if (!e) return undefined
  const r = e.replacedBy
  switch (r.kind) {
    case 'summary':
      if (e.stage === 'recorded') return 'it was in the messages the agent summarized, but not in the summary it wrote'
      if (r.inPrompt === undefined) return undefined
      if (!r.inPrompt) {
        return r.promptLine !== undefined
          ? `it was not in the prompt: ${names.before(e.beforeId)} reached the summarizer already without it`
          : 'it was not in the prompt: the summarizer never saw it (cut or left out to fit its window)'
      }
      return summarizer === 'llm'
        ? 'it was in the prompt but not in the answer'
        : 'it was in the prompt, but the extractive summary kept other lines'
    case 'placeholder':
      return `${names.before(e.beforeId)} was pruned: a placeholder took its place`
    case 'back-reference':
      return (
        `${names.before(e.beforeId)} became a back-reference to its first occurrence, ${names.before(r.firstId)}` +
        (r.targetEvicted ? ', which left the context too' : '')
      )
    default:
      return undefined
  }
}

/** A pass as naming reads it: its stage, number and the Before indices `[from, upto)` it folded. */
interface NamedPass {
  stage: string
  pass: number
  from: number
  upto: number
}

/** The passes of a run, found by stage and number (the first pass with that pair). */
function passLookup(passes: readonly NamedPass[]): VerdictNames['passSpan'] {
  // Built on the first question: most verdicts never ask (only a summary's loss names its span).
  let byKey: Map<string, NamedPass> | undefined
  return (stage, pass) => {
    if (!byKey) {
      byKey = new Map()
      for (const p of passes) {
        const key = `${p.stage}\u0000${p.pass}`
        if (!byKey.has(key)) byKey.set(key, p)
      }
    }
    return byKey.get(`${stage}\u0000${pass}`)
  }
}

/** An After message's origin as naming reads it: an engine `Origin`, `coveredIds` optional. */
export type NamedOrigin =
  | Exclude<Origin, { kind: 'summary' }>
  | Omit<Extract<Origin, { kind: 'summary' }>, 'coveredIds'>

/**
 * Names as the page's columns show them: a Before message by its position (`Before #41`, its
 * `Message.index`; the id when unknown), an After message by its position in the After column
 * and what it is (`Before #41 → After #7`, `Before #41 → After #7 (back-reference)`, `After #0
 * (summary of pass 2)`, `After #1 (pinned facts)`, `After #0 (the agent's recorded summary)`).
 * `beforeIndex`: Before id → index; `afterOf`: an After message's position in its column and
 * origin, when known (an unknown id is named as a Before one).
 */
export function positionNames(
  beforeIndex: ReadonlyMap<string, number>,
  afterOf: (id: string) => { index: number; origin?: NamedOrigin | undefined } | undefined,
  passes: readonly NamedPass[],
): VerdictNames {
  const before = (id: string) => {
    const i = beforeIndex.get(id)
    return i === undefined ? id : `Before #${i}`
  }
  const after = (id: string) => {
    const a = afterOf(id)
    if (!a) return before(id)
    const at = `After #${a.index}`
    const o = a.origin
    if (!o) return at
    switch (o.kind) {
      case 'original':
        return `${before(o.beforeId)} → ${at}`
      case 'back-reference':
        return `${before(o.beforeId)} → ${at} (back-reference)`
      case 'placeholder':
        return `${before(o.beforeId)} → ${at} (placeholder)`
      case 'summary':
        return `${at} (${o.stage === 'recorded' ? "the agent's recorded summary" : `summary of ${passName(o.stage, o.pass)}`})`
      case 'pinned-facts':
        return `${at} (pinned facts)`
      case 'instruction':
        return `${at} (an injected instruction)`
    }
  }
  return { before, after, passSpan: passLookup(passes) }
}

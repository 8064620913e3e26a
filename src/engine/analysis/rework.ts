/**
 * Re-work after compaction: what the agent did again after a compaction because the context no
 * longer held it — the cost of forgetting. For every simulated pass of a run (its boundary placed
 * in the Before: the turn end where it fired) and every compaction the agent recorded itself
 * (recorded.ts), the tool calls after the boundary that repeat a call made before it whose result
 * had been compacted away, and the questions the user asked again that the assistant had already
 * answered before it, with their tokens. Computed from the replay's provenance (fates) and token
 * counts; no LLM. Pure. Source: issue "Why did my agent forget X?" point 3; SPEC §3.2 (rolling
 * replay), §4 (fates).
 *
 * The rules, all conservative (a re-work listed is one a reader would call one):
 * - **Repeated call**: the same tool name and the same arguments (`normalizeArguments`: the JSON
 *   re-written with sorted keys and no spaces; raw text, trimmed, when it is not JSON). A call
 *   after the boundary repeats when an identical call was made before the boundary, none was made
 *   again between the boundary and it (only the first repeat counts: later ones had it in
 *   context), and the result of every identical call before the boundary is compacted away (see
 *   below). Its tokens are its own result's (the one it re-obtained; the earlier result's when
 *   the repeat has none yet).
 * - **Question asked again**: a user message typed by the person (not injected, not a command echo,
 *   not the agent's compaction summary) after the boundary, at most `QUESTION_MAX_CODE_POINTS`,
 *   that asks again an earlier user question made before the boundary. The earlier one must read
 *   as a question (it holds `?` or opens with an English question word) and have an answer before
 *   the boundary — the first assistant message with text after it, before the next user message —
 *   and that answer must be compacted away. "Asks again": both texts normalized (NFKC, lower
 *   case, every run of characters other than letters and digits one space) are equal, or one
 *   holds the other as a run of whole words, and the shorter has at least `REASK_MIN_WORDS`
 *   words. An earlier question counts once per boundary. Its tokens are the new answer's (the
 *   first assistant message with text after the re-ask, before the next user message; 0 when
 *   none).
 * - **Compacted away** at a simulated pass: the result's fate is `summarized` by a pass that fired
 *   at or before this one, or `pruned`, `slimmed` or `dropped` (those stages act on the whole
 *   transcript at once, so their fate holds at every boundary), or `back-referenced` to a first
 *   occurrence that is itself compacted away. At a recorded compaction: its fate in that
 *   compaction's recorded view is not `kept`.
 * - **Windows**: a pass's boundary is its `atMessage`; it owns the Before messages after it up to
 *   and including the next pass's (in `atMessage` order), so each repeat is charged to the latest
 *   compaction before it. A recorded compaction's boundary is before its `atIndex`; it owns
 *   `atIndex` up to the next recorded compaction's.
 */
import { contentText } from '../content'
import type { Fate, Message, Pass, RecordedCompaction, RunResult, StageId, Transcript } from '../model'
import { parseJsonWithin } from '../util/nesting'
import { cutCodePoints, codePointLength } from '../util/text'
import { recordedCompactionName, type RecordedAt } from '../facts/verdict'
import { recordedView } from './recorded'
import { inputRecord } from '../util/input-record'

/** The shorter of two question texts must have at least this many words to count as asked again. */
const REASK_MIN_WORDS = 4

/** User messages longer than this (code points) are not read as questions (pasted logs, files). */
const QUESTION_MAX_CODE_POINTS = 2000

/** Code points of a call's arguments, or of a question, kept for display. */
const REWORK_TEXT_LIMIT = 160

/** Which compaction a re-work entry follows. Message numbers are Before indices. */
type ReworkCompactionRef =
  | {
      kind: 'pass'
      stage: StageId
      /** 1-based pass number within its stage. */
      pass: number
      /** The turn end where the pass fired: the boundary. */
      atMessage: number
    }
  | {
      kind: 'recorded'
      /** 1-based number among the transcript's recorded compactions. */
      compaction: number
      /** The first message after the boundary. */
      atIndex: number
      trigger?: string
      /** The agent's own count before compacting (its tokenizer), when recorded. */
      tokensBefore?: number
    }

/** One message of a repeated call or question, by Before id and index. */
interface ReworkMessage {
  id: string
  index: number
}

/** A tool call after the boundary that repeats one whose result was compacted away. */
interface RepeatedCall {
  tool: string
  /** The normalized arguments, cut to `REWORK_TEXT_LIMIT` code points (an ellipsis added). */
  arguments: string
  /** The last identical call before the boundary: the calling message and its result. */
  first: { callId: string; call: ReworkMessage; result?: ReworkMessage; fate: Fate['kind'] }
  /** The repeat: the calling message and its result, when it has one. */
  repeat: { callId: string; call: ReworkMessage; result?: ReworkMessage }
  /** Tokens of the repeat's result (the earlier result's when it has none), in the run's encoding. */
  tokens: number
}

/** A user question after the boundary that the assistant had answered before it. */
interface RepeatedQuestion {
  /** The re-asked text, whitespace collapsed, cut to `REWORK_TEXT_LIMIT` code points; untrusted. */
  text: string
  /** The earlier question and its answer (compacted away). */
  first: { question: ReworkMessage; answer: ReworkMessage }
  /** The re-ask and the new answer, when there is one. */
  repeat: { question: ReworkMessage; answer?: ReworkMessage }
  /** Tokens of the new answer (0 without one), in the run's encoding. */
  tokens: number
}

/** The re-work after one compaction. */
export interface CompactionRework {
  compaction: ReworkCompactionRef
  /** Before indices searched for repeats, inclusive (`from > to` when the window is empty). */
  from: number
  to: number
  /** In Before order. */
  calls: RepeatedCall[]
  /** In Before order. */
  questions: RepeatedQuestion[]
  /** Sum of the calls' tokens. */
  callTokens: number
  /** Sum of the questions' tokens. */
  questionTokens: number
  /** `callTokens + questionTokens`. */
  tokens: number
  /** The one wording (`reworkSentence`), for the page and the CLI. */
  sentence: string
}

/** A tool call of the Before with its result, as the repeat search reads it. */
interface CallSite {
  key: string
  tool: string
  args: string
  callId: string
  call: ReworkMessage
  result?: ReworkMessage
}

/** A user message typed by the person, as the question search reads it. */
interface UserTurn {
  message: ReworkMessage
  /** Normalized words joined by one space, framed by spaces (` a b c `). */
  framed: string
  words: number
  isQuestion: boolean
  /** The first assistant message with text after it, before the next user turn. */
  answer?: ReworkMessage
  text: string
}

/** Calls and user turns of a Before, made once per messages array. */
interface BeforeIndex {
  calls: CallSite[]
  users: UserTurn[]
}

const indexes = new WeakMap<readonly Message[], BeforeIndex>()
const recordedFates = new WeakMap<Transcript, (Record<string, Fate> | null)[]>()

const QUESTION_WORDS = new Set([
  'what', 'which', 'where', 'when', 'who', 'whom', 'whose', 'why', 'how', 'is', 'are', 'was', 'were',
  'do', 'does', 'did', 'can', 'could', 'should', 'would', 'will', 'shall', 'may', 'have', 'has',
])

/**
 * A call's arguments in one spelling: valid JSON re-written with object keys sorted and no
 * whitespace (`{"b":1, "a":2}` and `{"a":2,"b":1}` are the same call); anything else, and JSON
 * nesting deeper than `MAX_NESTING` (`parseJsonWithin`), trimmed. Pure.
 */
export function normalizeArguments(raw: string): string {
  const parsed = parseJsonWithin(raw)
  if (!parsed) return raw.trim()
  return JSON.stringify(sortKeys(parsed.value))
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value && typeof value === 'object') {
    const out = inputRecord<unknown>()
    for (const k of Object.keys(value).sort()) out[k] = sortKeys((value as Record<string, unknown>)[k])
    return out
  }
  return value
}

/** Normalized words of a text: NFKC, lower case, letters and digits only (any script). */
function wordsOf(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '')
}

function cutForDisplay(text: string): string {
  return codePointLength(text) > REWORK_TEXT_LIMIT ? `${cutCodePoints(text, REWORK_TEXT_LIMIT)}…` : text
}

function isPersonTurn(m: Message): boolean {
  const f = m.flags
  return m.role === 'user' && !f?.injected && !f?.command && !f?.compactSummary && !f?.apiError
}

function indexBefore(messages: readonly Message[]): BeforeIndex {
  const known = indexes.get(messages)
  if (known) return known
  const resultOf = new Map<string, ReworkMessage>()
  for (const m of messages) {
    if (m.role === 'tool' && m.toolCallId !== undefined && !resultOf.has(m.toolCallId)) {
      resultOf.set(m.toolCallId, { id: m.id, index: m.index })
    }
  }
  const calls: CallSite[] = []
  const users: UserTurn[] = []
  let open: UserTurn[] = [] // user turns still waiting for their answer
  for (const m of messages) {
    const at = { id: m.id, index: m.index }
    for (const c of m.toolCalls ?? []) {
      const args = normalizeArguments(c.arguments)
      const site: CallSite = { key: `${c.name}\u0000${args}`, tool: c.name, args, callId: c.id, call: at }
      const result = resultOf.get(c.id)
      if (result) site.result = result
      calls.push(site)
    }
    if (m.role === 'assistant' && open.length > 0 && contentText(m.content).trim() !== '') {
      for (const u of open) u.answer = at
      open = []
    }
    if (!isPersonTurn(m)) continue
    open = []
    const text = contentText(m.content)
    if (text.trim() === '' || codePointLength(text) > QUESTION_MAX_CODE_POINTS) continue
    const words = wordsOf(text)
    if (words.length === 0) continue
    const turn: UserTurn = {
      message: at,
      framed: ` ${words.join(' ')} `,
      words: words.length,
      isQuestion: text.includes('?') || text.includes('？') || QUESTION_WORDS.has(words[0] ?? ''),
      text: cutForDisplay(text.trim().replace(/\s+/g, ' ')),
    }
    users.push(turn)
    open = [turn]
  }
  const index = { calls, users }
  indexes.set(messages, index)
  return index
}

/** True when `later` asks again what `earlier` asked (see the module's rule). */
function asksAgain(earlier: UserTurn, later: UserTurn): boolean {
  if (Math.min(earlier.words, later.words) < REASK_MIN_WORDS) return false
  return later.framed.includes(earlier.framed) || earlier.framed.includes(later.framed)
}

/** A boundary and the window it owns, with the test "compacted away at this boundary". */
interface Boundary {
  ref: ReworkCompactionRef
  /** Last Before index before the boundary. */
  last: number
  from: number
  to: number
  compacted: (id: string) => boolean
  fateOf: (id: string) => Fate['kind']
}

/** Re-work in one window: the repeated calls and questions after the boundary. */
function reworkAt(b: Boundary, index: BeforeIndex, tokensOf: (id: string) => number): CompactionRework {
  const calls: RepeatedCall[] = []
  const questions: RepeatedQuestion[] = []
  if (b.from <= b.to) {
    const earlier = new Map<string, CallSite[]>() // identical calls before the boundary, in order
    const repeated = new Set<string>()
    for (const site of index.calls) {
      const i = site.call.index
      if (i > b.to) break
      if (i <= b.last) {
        const list = earlier.get(site.key)
        if (list) list.push(site)
        else earlier.set(site.key, [site])
        continue
      }
      if (i < b.from || repeated.has(site.key)) continue
      const before = earlier.get(site.key)
      if (!before) continue
      // Whatever happens, a later identical call in this window had this one in context.
      repeated.add(site.key)
      if (!before.every((s) => s.result !== undefined && b.compacted(s.result.id))) continue
      const first = before[before.length - 1] as CallSite
      const firstResult = first.result as ReworkMessage
      const entry: RepeatedCall = {
        tool: site.tool,
        arguments: cutForDisplay(site.args),
        first: { callId: first.callId, call: first.call, result: firstResult, fate: b.fateOf(firstResult.id) },
        repeat: { callId: site.callId, call: site.call },
        tokens: tokensOf((site.result ?? firstResult).id),
      }
      if (site.result) entry.repeat.result = site.result
      calls.push(entry)
    }
    const used = new Set<UserTurn>()
    const asked = index.users.filter((u) => u.isQuestion && u.message.index <= b.last && u.answer !== undefined && u.answer.index <= b.last)
    for (const later of index.users) {
      const j = later.message.index
      if (j < b.from) continue
      if (j > b.to) break
      let match: UserTurn | undefined
      for (let k = asked.length - 1; k >= 0; k--) {
        const q = asked[k] as UserTurn
        if (!used.has(q) && asksAgain(q, later)) {
          match = q
          break
        }
      }
      if (!match) continue
      used.add(match)
      const answer = match.answer as ReworkMessage
      if (!b.compacted(answer.id)) continue
      const entry: RepeatedQuestion = {
        text: later.text,
        first: { question: match.message, answer },
        repeat: { question: later.message },
        tokens: later.answer ? tokensOf(later.answer.id) : 0,
      }
      if (later.answer) entry.repeat.answer = later.answer
      questions.push(entry)
    }
  }
  const callTokens = calls.reduce((n, c) => n + c.tokens, 0)
  const questionTokens = questions.reduce((n, q) => n + q.tokens, 0)
  const out: CompactionRework = {
    compaction: b.ref,
    from: b.from,
    to: b.to,
    calls,
    questions,
    callTokens,
    questionTokens,
    tokens: callTokens + questionTokens,
    sentence: '',
  }
  out.sentence = reworkSentence(out)
  return out
}

/** The boundaries of a run's simulated passes, in `atMessage` order. */
function passBoundaries(run: RunResult): Boundary[] {
  const last = run.before.messages.length - 1
  const firedAt = new Map<string, number>()
  for (const p of run.passes) firedAt.set(`${p.stage}:${p.pass}`, p.atMessage)
  // A recorded run's passes are the agent's compactions: `recordedBoundaries` reads those.
  const simulated = run.passes.filter((p): p is Pass & { stage: StageId } => p.stage !== 'recorded')
  const sorted = simulated.sort((a, b) => a.atMessage - b.atMessage)
  return sorted.map((p, k) => {
    const at = p.atMessage
    const compacted = (id: string, depth = 0): boolean => {
      const fate = run.fates[id]
      if (!fate) return false
      switch (fate.kind) {
        case 'kept':
          return false
        case 'summarized': {
          const fired = firedAt.get(`${fate.stage}:${fate.pass}`)
          return fired !== undefined && fired <= at
        }
        case 'back-referenced':
          // A chain of back-references ends at a first occurrence; the depth guards a cycle.
          return depth < 8 && compacted(fate.firstId, depth + 1)
        default:
          return true
      }
    }
    return {
      ref: { kind: 'pass', stage: p.stage, pass: p.pass, atMessage: at },
      last: at,
      from: at + 1,
      to: sorted[k + 1]?.atMessage ?? last,
      compacted: (id) => compacted(id),
      fateOf: (id) => run.fates[id]?.kind ?? 'kept',
    }
  })
}

/** Fates of each recorded compaction's view, made once per transcript (null: no view). */
function recordedFatesOf(transcript: Transcript): (Record<string, Fate> | null)[] {
  let fates = recordedFates.get(transcript)
  if (!fates) {
    fates = transcript.recordedCompactions.map((_, compaction) => recordedView(transcript, { compaction })?.fates ?? null)
    recordedFates.set(transcript, fates)
  }
  return fates
}

/** The boundaries of the transcript's recorded compactions, in `atIndex` order. */
function recordedBoundaries(transcript: Transcript): Boundary[] {
  const n = transcript.messages.length
  const fates = recordedFatesOf(transcript)
  const list = transcript.recordedCompactions
    .map((c, k) => ({ c, k, at: Math.max(0, Math.min(c.atIndex, n)) }))
    .sort((a, b) => a.at - b.at)
  return list.map(({ c, k, at }, pos) => {
    const f = fates[k] ?? {}
    const ref: ReworkCompactionRef = { kind: 'recorded', compaction: k + 1, atIndex: c.atIndex }
    copyRecorded(c, ref)
    return {
      ref,
      last: at - 1,
      from: at,
      to: (list[pos + 1]?.at ?? n) - 1,
      compacted: (id) => (f[id]?.kind ?? 'kept') !== 'kept',
      fateOf: (id) => f[id]?.kind ?? 'kept',
    }
  })
}

function copyRecorded(c: RecordedCompaction, ref: Extract<ReworkCompactionRef, { kind: 'recorded' }>): void {
  if (c.trigger !== undefined) ref.trigger = c.trigger
  if (c.tokensBefore !== undefined) ref.tokensBefore = c.tokensBefore
}

/**
 * The re-work after every simulated pass of `run` (in `atMessage` order), then after every
 * compaction `transcript` records (in boundary order), by the rules of this module. `run` must be
 * a pipeline run of `transcript` (its Before is `transcript.messages`); tokens are its Before's
 * (`run.before.tokensById`, the run's encoding). An entry is listed for every compaction, with
 * no calls or questions when nothing was re-done. Never mutates its inputs; the per-transcript
 * indexes are cached (weakly) across calls. Source: issue "Why did my agent forget X?" point 3.
 */
export function reworkAfterCompactions(transcript: Transcript, run: RunResult): CompactionRework[] {
  const index = indexBefore(run.before.messages)
  const tokensOf = (id: string) => run.before.tokensById[id] ?? 0
  return [...passBoundaries(run), ...recordedBoundaries(transcript)].map((b) => reworkAt(b, index, tokensOf))
}

const counts = new Intl.NumberFormat('en-US')

function countOf(n: number, singular: string, plural = `${singular}s`): string {
  return `${counts.format(n)} ${n === 1 ? singular : plural}`
}

/**
 * Where a compaction was: `pass 1 of summarize at message 28`, or the agent's own as verdicts name
 * it (`recordedCompactionName`: `the agent's compaction 2 (message 28, manual, 24,376 tokens)`).
 */
function reworkCompactionName(ref: ReworkCompactionRef): string {
  if (ref.kind === 'pass') return `pass ${ref.pass} of ${ref.stage} at message ${ref.atMessage}`
  const at: RecordedAt = { atIndex: ref.atIndex, compaction: ref.compaction }
  if (ref.trigger !== undefined && ref.trigger !== '') at.trigger = ref.trigger
  if (ref.tokensBefore !== undefined) at.tokensBefore = ref.tokensBefore
  return recordedCompactionName(at)
}

/**
 * The one sentence of a re-work entry: `after pass 1 of summarize at message 28: it repeated 3
 * tool calls (Read ×2, Bash) and was asked 1 question again: 9,420 tokens`, or `…: no re-work`.
 * Tools are named in order of first repeat, with a count when more than one. Pure.
 */
export function reworkSentence(r: Pick<CompactionRework, 'compaction' | 'calls' | 'questions' | 'tokens'>): string {
  const where = `after ${reworkCompactionName(r.compaction)}`
  if (r.calls.length === 0 && r.questions.length === 0) return `${where}: no re-work`
  const parts: string[] = []
  if (r.calls.length > 0) {
    const byTool = new Map<string, number>()
    for (const c of r.calls) byTool.set(c.tool, (byTool.get(c.tool) ?? 0) + 1)
    const tools = [...byTool].map(([tool, n]) => (n > 1 ? `${tool} ×${n}` : tool)).join(', ')
    parts.push(`it repeated ${countOf(r.calls.length, 'tool call')} (${tools})`)
  }
  if (r.questions.length > 0) {
    parts.push(`${parts.length > 0 ? 'was' : 'it was'} asked ${countOf(r.questions.length, 'question')} again`)
  }
  return `${where}: ${parts.join(' and ')}: ${countOf(r.tokens, 'token')}`
}

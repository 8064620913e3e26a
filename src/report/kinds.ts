/**
 * The visual kinds of change (DESIGN §4) in words: each kind's icon, name and explanation, the chip
 * label and one-sentence reason of a message's fate or origin, and which kinds the legend shows for
 * a pipeline. Pure: the page's legend and chips and the HTML report (build.ts) read the same words.
 */
import { passName } from '../engine/facts/verdict'
import type { Fate, Origin } from '../engine/model'
import { nounFor } from '../engine/util/text'
import { isStageId, STAGE_DEFINITIONS, stageDefinition } from '../engine/stages/definitions'

/**
 * An After message's origin as views carry it: the engine's `Origin`, where a summary may leave
 * out its `coveredIds` (a summary of 60,000 messages would carry their ids twice). Any `Origin` is one.
 */
export type OriginView =
  | Exclude<Origin, { kind: 'summary' }>
  | Omit<Extract<Origin, { kind: 'summary' }>, 'coveredIds'>

/** The visual kinds of change: one colour, one icon, one label each (DESIGN §4). */
export type ChangeKind =
  | 'kept'
  | 'changed'
  | 'back-reference'
  | 'placeholder'
  | 'summary'
  | 'pinned'
  | 'slimmed'
  | 'instruction'
  | 'dropped'

/** Icon, legend name and explanation of each kind. */
export const KIND_INFO: Record<ChangeKind, { icon: string; name: string; explain: string }> = {
  kept: { icon: '✓', name: 'Kept', explain: 'Unchanged: the message is in the context as it was.' },
  changed: { icon: '✎', name: 'Changed', explain: 'Kept, but its content was edited by a stage.' },
  'back-reference': {
    icon: '↩',
    name: 'Back-reference',
    explain: 'A repeated tool output replaced by a one-line reference to the earlier, byte-identical result (dedupe).',
  },
  placeholder: {
    icon: '✂',
    name: 'Placeholder',
    explain: 'An old tool result dropped to free context; the call keeps a short placeholder (prune-tool-results).',
  },
  summary: {
    icon: 'Σ',
    name: 'Summary',
    explain: 'Older messages folded into one summary message by a compaction pass.',
  },
  pinned: { icon: '⚑', name: 'Pinned facts', explain: 'Facts copied verbatim next to the summary.' },
  slimmed: { icon: '≡', name: 'Slimmed', explain: 'A tool output shortened (lists cut, repeated rows dropped).' },
  instruction: { icon: '➤', name: 'Instruction', explain: 'The compression instruction appended to the conversation.' },
  dropped: { icon: '✕', name: 'Dropped', explain: 'Removed from the context without a replacement.' },
}

/** The name of one compaction pass (`pass 2`, `insert-then-compress`): the engine's, one wording. */
export { passName }

/** The kind and chip label of a before message's fate. */
export function fateChip(fate: Fate): { kind: ChangeKind; label: string } {
  switch (fate.kind) {
    case 'kept':
      return { kind: 'kept', label: 'kept' }
    case 'back-referenced':
      return { kind: 'back-reference', label: 'back-referenced' }
    case 'pruned':
      return { kind: 'placeholder', label: 'pruned' }
    case 'summarized':
      return fate.stage === 'recorded'
        ? { kind: 'summary', label: 'summarized · recorded' }
        : fate.stage === 'summarize'
          ? { kind: 'summary', label: `summarized · pass ${fate.pass}` }
          : { kind: 'summary', label: `compressed · ${passName(fate.stage, fate.pass)}` }
    case 'slimmed':
      return { kind: 'slimmed', label: 'slimmed' }
    case 'dropped':
      return { kind: 'dropped', label: 'dropped' }
  }
}

/** The kind and chip label of an after message's origin. */
export function originChip(origin: OriginView): { kind: ChangeKind; label: string } {
  switch (origin.kind) {
    case 'original':
      return origin.changed ? { kind: 'changed', label: 'changed' } : { kind: 'kept', label: 'kept' }
    case 'back-reference':
      return { kind: 'back-reference', label: 'back-reference' }
    case 'placeholder':
      return { kind: 'placeholder', label: 'placeholder' }
    case 'summary':
      return origin.stage === 'recorded'
        ? { kind: 'summary', label: 'recorded summary' }
        : { kind: 'summary', label: `summary · ${passName(origin.stage, origin.pass)}` }
    case 'pinned-facts':
      return { kind: 'pinned', label: 'pinned facts' }
    case 'instruction':
      return origin.stage === 'recorded'
        ? { kind: 'instruction', label: 'recorded · re-injected' }
        : { kind: 'instruction', label: 'instruction' }
  }
}

/** A message's name in a sentence, from its id: the id itself, or a position such as `#23`. */
type NameOf = (id: string) => string
const byId: NameOf = (id) => id

/**
 * Why a before message looks the way it does, in one sentence (tooltip text). `name` names the
 * message it refers to (default: its id; the HTML report passes `#23`, the column's number).
 */
export function explainFate(fate: Fate, name: NameOf = byId): string {
  switch (fate.kind) {
    case 'kept':
      return 'Kept unchanged.'
    case 'back-referenced':
      return `Byte-identical to an earlier tool output (${name(fate.firstId)}); replaced by a back-reference by ${fate.stage}.`
    case 'pruned':
      return `Replaced by a placeholder by ${fate.stage}: “${fate.placeholder}”`
    case 'summarized':
      return fate.stage === 'recorded'
        ? `Folded by the agent into its recorded summary (recorded compaction ${fate.pass}).`
        : fate.stage === 'summarize'
          ? `Folded into the summary of pass ${fate.pass} by summarize.`
          : `Folded into the summary written by ${passName(fate.stage, fate.pass)}.`
    case 'slimmed':
      return `Shortened by ${fate.stage}.`
    case 'dropped':
      return `Dropped by ${fate.stage}: ${fate.reason}`
  }
}

/**
 * Why an after message is there, in one sentence (tooltip text). `name` names the Before message
 * it refers to (default: its id; the HTML report passes `#23`, the Before column's number).
 */
export function explainOrigin(origin: OriginView, name: NameOf = byId): string {
  switch (origin.kind) {
    case 'original':
      return origin.changed ? `Message ${name(origin.beforeId)}, edited.` : `Message ${name(origin.beforeId)}, unchanged.`
    case 'back-reference':
      return `Back-reference to the first occurrence ${name(origin.firstId)} (stands for ${name(origin.beforeId)}).`
    case 'placeholder':
      return `Placeholder for the dropped result of ${name(origin.beforeId)}.`
    case 'summary':
      return origin.stage === 'recorded'
        ? `The agent's own summary of messages ${origin.fromIndex}–${origin.toIndex}, as recorded in the source (recorded compaction ${origin.pass}).`
        : `Summary of messages ${origin.fromIndex}–${origin.toIndex} (${passName(origin.stage, origin.pass)}` +
          `${origin.stage === 'summarize' ? ', summarize' : ''}).`
    case 'pinned-facts':
      return `Facts pinned from ${origin.sourceIds.length} ${nounFor(origin.sourceIds.length, 'message')}.`
    case 'instruction':
      return origin.stage === 'recorded'
        ? 'Context the agent re-injected after its compaction, as recorded in the source.'
        : `Instruction appended by ${origin.stage}.`
  }
}

/** The kinds the legend lists, in its order (`changed` is a chip only, never a legend entry). */
export const LEGEND_KINDS: readonly ChangeKind[] = ['kept', 'back-reference', 'placeholder', 'summary', 'pinned', 'slimmed', 'instruction', 'dropped']

/** The legend's two boundary samples: a sample label and what it means. */
export const BOUNDARY_INFO = {
  pass: { sample: 'Σ pass 2: messages 0–57 → summary', explain: 'A summary boundary: where a compaction pass folded older messages into one summary.' },
  recorded: { sample: '⎇ recorded compaction', explain: 'A compaction the agent itself already made inside this transcript.' },
} as const

/**
 * Which kinds a run can produce with the stages `enabled`: what each enabled stage's definition
 * says it produces (stages/definitions.ts `produces`); recorded compactions (`hasRecorded`) add
 * summaries and re-injected instructions; the pipeline itself may drop empty messages.
 */
export function producibleKinds(enabled: readonly string[], hasRecorded: boolean): Set<ChangeKind> {
  const kinds = new Set<ChangeKind>(['kept', 'dropped'])
  for (const id of enabled) {
    if (isStageId(id)) for (const kind of stageDefinition(id).produces) kinds.add(kind)
  }
  if (hasRecorded) {
    kinds.add('summary')
    kinds.add('instruction')
  }
  return kinds
}

/**
 * Kinds only stages the pipeline does not list (`known`: every stage id of the config) can
 * produce: the legend says they come with later stages.
 */
export function laterKinds(known: readonly string[]): Set<ChangeKind> {
  const later = new Set<ChangeKind>()
  for (const def of STAGE_DEFINITIONS) {
    if (!known.includes(def.id)) for (const kind of def.produces) later.add(kind)
  }
  for (const id of known) if (isStageId(id)) for (const kind of stageDefinition(id).produces) later.delete(kind)
  return later
}

/** Why the legend dims a kind the pipeline cannot produce: its stage is later or off. */
export function offKindReason(kind: ChangeKind, later: ReadonlySet<ChangeKind>): string {
  return later.has(kind) ? 'appears with later stages' : 'its stage is off'
}

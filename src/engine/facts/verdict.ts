/**
 * Fact verdicts: their shape (`FactVerdict`: survives, lost, never present, and the event that
 * lost the last copy) and their wording. Types and words only, so the page can import it without
 * the finder. Source: SPEC §6 "Fact finder".
 */
import type { StageId } from '../model'
import { cutCodePoints } from '../util/text'

/** What a fact is matched as: a verbatim string, or a regular expression. */
export type FactQuery = string | RegExp

/** How an after message holds a fact. */
export type KeptAs = 'verbatim' | 'summary' | 'pinned'

/** What replaced the last copy of a lost fact. */
export type Replacement =
  | { kind: 'summary'; summaryId: string; text: string }
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
  /** One sentence for people. */
  explanation: string
}

/** One loss event in words: the stage (and pass) and what it did to the message's copy. */
export function describeEvent(e: LossEvent): string {
  const where = `${e.stage}${e.pass !== undefined ? ` pass ${e.pass}` : ''}`
  const r = e.replacedBy
  switch (r.kind) {
    case 'summary':
      return `${where} folded message ${e.beforeId} into summary ${r.summaryId}, which omits it`
    case 'placeholder':
      return `${where} replaced message ${e.beforeId} with the placeholder "${cutCodePoints(
        r.text,
        80,
      )}"`
    case 'back-reference':
      return (
        `${where} replaced message ${e.beforeId} with a back-reference to ${r.firstId}` +
        (r.targetEvicted ? ', whose target was evicted too' : '')
      )
    case 'slimmed':
      return `${where} slimmed message ${e.beforeId} and cut it`
    case 'dropped':
      return `${where} dropped message ${e.beforeId} (${r.reason})`
    case 'changed':
      return `message ${e.beforeId} was changed and no longer holds it`
  }
}

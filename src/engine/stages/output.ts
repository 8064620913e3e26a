import type { Message } from '../model'
import type { StageOutput } from './types'

/**
 * The "no change" result of a stage: `messages` is the input array itself (not a copy),
 * nothing in `fates`/`origins`/`passes`, the `note` saying why, plus any `extra` fields
 * (`error`, `warnings`, `decisions`). Source: SPEC §3.3 "No change at all → no change".
 */
export function unchangedOutput(
  messages: readonly Message[],
  note: string,
  extra: Partial<StageOutput> = {},
): StageOutput {
  return {
    messages: messages as Message[],
    changed: false,
    fates: {},
    origins: {},
    passes: [],
    note,
    warnings: [],
    ...extra,
  }
}

/** Every message a stage synthesizes as a summary has an id starting with this. */
export const SUMMARY_ID_PREFIX = 'summary:'

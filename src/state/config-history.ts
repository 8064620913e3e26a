/**
 * Undo/redo history of the pipeline settings. Pure functions over a plain
 * value, so the store keeps it as state and tests drive it without a DOM.
 *
 * Coalescing: changes of the same single param that follow each other within
 * `COALESCE_MS` (a slider drag, typing digits) form one step; `closeGroup` (pointerup) ends a
 * group early. A group that comes back to where it started leaves no step.
 */
import type { PipelineConfig } from '../engine/model'

/** Changes of one param closer together than this (ms) are one undo step. */
export const COALESCE_MS = 500

/** At most this many undo steps are kept (the oldest go first). */
const HISTORY_LIMIT = 100

/** The history: configs before each step (`past`, oldest first) and undone ones (`future`). */
export interface ConfigHistory {
  past: PipelineConfig[]
  future: PipelineConfig[]
  /** The open coalescing group: which param, and when (ms since epoch) it last changed. */
  group: { key: string; at: number } | null
}

/** A history with nothing in it. */
export const EMPTY_HISTORY: ConfigHistory = { past: [], future: [], group: null }

/**
 * What a change edits when it is one param of one stage (`summarize.keep_last`), else null: only
 * such changes coalesce. Stage order, on/off, encoding, summarizer and several params at once
 * (a preset, a sweep cell) are always their own step.
 */
function changeKey(prev: PipelineConfig, next: PipelineConfig): string | null {
  if (prev.encoding !== next.encoding || prev.summarizer !== next.summarizer) return null
  if (JSON.stringify(prev.summarizerOptions) !== JSON.stringify(next.summarizerOptions)) return null
  if (prev.stages.length !== next.stages.length) return null
  let key: string | null = null
  for (let i = 0; i < prev.stages.length; i++) {
    const a = prev.stages[i]
    const b = next.stages[i]
    if (!a || !b || a.id !== b.id || a.enabled !== b.enabled) return null
    if (a.params === b.params) continue
    const pa = a.params as Record<string, unknown>
    const pb = b.params as Record<string, unknown>
    for (const name of new Set([...Object.keys(pa), ...Object.keys(pb)])) {
      if (JSON.stringify(pa[name]) === JSON.stringify(pb[name])) continue
      if (key !== null) return null
      key = `${a.id}.${name}`
    }
  }
  return key
}

const same = (a: PipelineConfig | undefined, b: PipelineConfig) => a !== undefined && JSON.stringify(a) === JSON.stringify(b)

/**
 * The history after the config changed from `prev` to `next` at `now` (ms). A change continuing
 * the open group adds no step; any change clears `future` (redo is gone once you edit).
 */
export function recordChange(
  history: ConfigHistory,
  prev: PipelineConfig,
  next: PipelineConfig,
  now: number,
): ConfigHistory {
  const key = changeKey(prev, next)
  const continues =
    key !== null && history.group !== null && history.group.key === key && now - history.group.at <= COALESCE_MS
  let past = history.past
  if (!continues) past = [...past, prev].slice(-HISTORY_LIMIT)
  // Dragged back to where the group started: that step is no step. The group ends with it, so a
  // drag that goes on past its start (20 → 1 → 32) records its start again as one new step,
  // instead of coalescing into a step that no longer exists (the whole drag was unrecorded).
  if (continues && same(past[past.length - 1], next)) return { past: past.slice(0, -1), future: [], group: null }
  return { past, future: [], group: key === null ? null : { key, at: now } }
}

/** Ends the open coalescing group: the next change is a new step. */
export function closeGroup(history: ConfigHistory): ConfigHistory {
  return history.group === null ? history : { ...history, group: null }
}

/** Steps back: the config to show and the new history, or null when there is nothing to undo. */
export function undoStep(
  history: ConfigHistory,
  current: PipelineConfig,
): { config: PipelineConfig; history: ConfigHistory } | null {
  const config = history.past[history.past.length - 1]
  if (!config) return null
  return {
    config,
    history: { past: history.past.slice(0, -1), future: [current, ...history.future], group: null },
  }
}

/** Steps forward again: the config and the new history, or null when there is nothing to redo. */
export function redoStep(
  history: ConfigHistory,
  current: PipelineConfig,
): { config: PipelineConfig; history: ConfigHistory } | null {
  const [config, ...future] = history.future
  if (!config) return null
  return { config, history: { past: [...history.past, current].slice(-HISTORY_LIMIT), future, group: null } }
}

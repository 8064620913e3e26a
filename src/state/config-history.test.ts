import { describe, expect, it } from 'vitest'
import type { PipelineConfig } from '../engine/model'
import { closeGroup, COALESCE_MS, EMPTY_HISTORY, recordChange, redoStep, undoStep, type ConfigHistory } from './config-history'

/** A config whose only varying part is summarize's keep_last / compact_after. */
function cfg(keepLast: number, compactAfter = 40): PipelineConfig {
  return {
    encoding: 'o200k_base',
    summarizer: 'extractive',
    stages: [{ id: 'summarize', enabled: true, params: { keep_last: keepLast, compact_after: compactAfter } }],
  }
}

/** Records a drag of keep_last through `values`, one change every 20 ms (well inside COALESCE_MS). */
function drag(history: ConfigHistory, values: number[], start = 0): ConfigHistory {
  let h = history
  for (let i = 1; i < values.length; i++) h = recordChange(h, cfg(values[i - 1] ?? 0), cfg(values[i] ?? 0), start + i * 20)
  return h
}

const keepLastOf = (c: PipelineConfig | undefined) =>
  (c?.stages[0]?.params as { keep_last?: number } | undefined)?.keep_last

describe('recordChange', () => {
  it('a slider drag of one param is one step, whose undo goes back to where the drag started', () => {
    const h = drag(EMPTY_HISTORY, [20, 21, 22, 25, 30])
    expect(h.past.map(keepLastOf)).toEqual([20])
  })

  it('a drag that passes through its start and goes on is still one step (was: no step at all)', () => {
    // Pointer down far left jumps 20 → 1, then the drag crosses 20 on its way to 32.
    const h = drag(EMPTY_HISTORY, [20, 1, 10, 20, 26, 32])
    expect(h.past.map(keepLastOf)).toEqual([20])
    const undone = undoStep(h, cfg(32))
    expect(keepLastOf(undone?.config)).toBe(20)
  })

  it('a drag that ends where it started leaves no step', () => {
    expect(drag(EMPTY_HISTORY, [20, 25, 20]).past).toEqual([])
  })

  it('a change after the coalescing window, after closeGroup, or of another param is a new step', () => {
    let h = recordChange(EMPTY_HISTORY, cfg(20), cfg(21), 0)
    h = recordChange(h, cfg(21), cfg(22), COALESCE_MS + 1)
    expect(h.past.map(keepLastOf)).toEqual([20, 21])
    h = recordChange(closeGroup(h), cfg(22), cfg(23), COALESCE_MS + 2)
    expect(h.past.map(keepLastOf)).toEqual([20, 21, 22])
    h = recordChange(h, cfg(23), cfg(23, 50), COALESCE_MS + 3)
    expect(h.past).toHaveLength(4)
  })
})

describe('undoStep / redoStep', () => {
  it('undo then redo returns to the same config; nothing to undo gives null', () => {
    const h = recordChange(EMPTY_HISTORY, cfg(20), cfg(12), 0)
    const undone = undoStep(h, cfg(12))
    expect(keepLastOf(undone?.config)).toBe(20)
    const redone = undone && redoStep(undone.history, undone.config)
    expect(keepLastOf(redone?.config)).toBe(12)
    expect(undoStep(EMPTY_HISTORY, cfg(20))).toBeNull()
  })
})

import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { PipelineConfig } from '../../engine/model'
import type { ImportOutcome, ImportProgress, RunOutcome } from '../../worker/protocol'

/** A fake engine whose streamed import keeps its progress callback for the test to call late. */
const fake = vi.hoisted(() => ({
  late: [] as ((p: ImportProgress) => void)[],
  importBlob: vi.fn<(blob: Blob, fileName: string, onProgress?: (p: ImportProgress) => void) => Promise<ImportOutcome>>(),
  getDefaults: vi.fn<() => Promise<PipelineConfig>>(),
  run: vi.fn(() => new Promise<RunOutcome>(() => {})),
}))

vi.mock('../../app/engine-client', () => ({ getEngine: () => fake, restartEngine: vi.fn() }))
vi.mock('comlink', () => ({ proxy: <T>(fn: T) => fn }))

const { useStore } = await import('../store')

const outcome = (fileName: string): ImportOutcome => ({
  ok: false,
  error: { message: `unknown transcript format (${fileName})` },
})

beforeEach(() => {
  useStore.setState(useStore.getInitialState(), true)
  fake.late.length = 0
  fake.getDefaults.mockResolvedValue({ encoding: 'o200k_base', summarizer: 'extractive', stages: [] })
  fake.importBlob.mockImplementation(async (_blob, fileName, onProgress) => {
    if (onProgress) fake.late.push(onProgress)
    return outcome(fileName)
  })
})

describe('streamed loads', () => {
  it('a progress report arriving after the import finished is dropped (no bar, no endless "Building…")', async () => {
    await useStore.getState().loadFile(new File(['{"a":1}'], 'x.json'))
    expect(useStore.getState().loading).toBeNull()
    expect(useStore.getState().importFailure?.fileName).toBe('x.json')
    // The worker's last report crosses its own message port and lands after the outcome.
    fake.late[0]!({ phase: 'building', bytes: 7, totalBytes: 7 })
    expect(useStore.getState().importProgress).toBeNull()
    expect(useStore.getState().loading).toBeNull()
  })
})

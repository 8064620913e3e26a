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

describe('a file over the input limit', () => {
  /** A file that says it holds `size` bytes (nothing that large is made). */
  const fileOf = (name: string, size: number) => {
    const file = new File(['{}'], name)
    Object.defineProperty(file, 'size', { value: size })
    return file
  }

  it('is refused in one line naming its size and the limit, before the worker reads any of it', async () => {
    fake.importBlob.mockClear()
    await useStore.getState().loadFile(fileOf('huge.jsonl', 600 * 1024 * 1024))
    expect(fake.importBlob).not.toHaveBeenCalled()
    const failure = useStore.getState().importFailure
    expect(failure?.fileName).toBe('huge.jsonl')
    expect(failure?.error.message).toBe('this file holds 600 MB, over the 512 MB limit for one input; it was not read')
    expect(useStore.getState().loading).toBeNull()
  })

  it('one byte over the limit is refused; exactly at the limit it is read', async () => {
    const { MAX_INPUT_BYTES } = await import('../../engine/formats/limits')
    fake.importBlob.mockClear()
    await useStore.getState().loadFile(fileOf('over.jsonl', MAX_INPUT_BYTES + 1))
    expect(fake.importBlob).not.toHaveBeenCalled()
    expect(useStore.getState().importFailure?.error.message).toMatch(/^this file holds .*, over the 512 MB limit for one input; it was not read$/)
    await useStore.getState().loadFile(fileOf('edge.jsonl', MAX_INPUT_BYTES))
    expect(fake.importBlob).toHaveBeenCalledTimes(1)
  })
})

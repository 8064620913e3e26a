import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { PipelineConfig } from '../../engine/model'
import type { ExportOutcome, ImportOutcome, RecordedOutcome, RunOutcome } from '../../worker/protocol'

/** A fake engine whose exports wait until the test settles them. */
const fake = vi.hoisted(() => {
  const exports: ((o: ExportOutcome) => void)[] = []
  return {
    exports,
    exportAfter: vi.fn(() => new Promise<ExportOutcome>((resolve) => exports.push(resolve))),
    importText: vi.fn<(text: string, fileName: string) => Promise<ImportOutcome>>(),
    openConversation: vi.fn<(which: 'main' | number) => Promise<ImportOutcome>>(),
    runRecorded: vi.fn(() => new Promise<RecordedOutcome>(() => {})),
    getDefaults: vi.fn<() => Promise<PipelineConfig>>(),
    run: vi.fn(() => new Promise<RunOutcome>(() => {})),
  }
})
const download = vi.hoisted(() => vi.fn())

vi.mock('../../app/engine-client', () => ({ getEngine: () => fake, restartEngine: vi.fn() }))
vi.mock('../../app/download', () => ({ downloadBlob: download }))
vi.mock('comlink', () => ({ proxy: <T>(fn: T) => fn }))

const { useStore } = await import('../store')

const imported = (fileName: string, compactions = 0): ImportOutcome => ({
  ok: true,
  info: {
    fileName,
    format: 'claude-code',
    messageCount: 3,
    recordedCompactions: Array.from({ length: compactions }, () => ({
      atIndex: 1,
      summaryText: 's',
      source: 'claude-code' as const,
    })),
    warnings: [],
    notes: [],
    branches: [],
    branchCount: 0,
    sidechains: [{ index: 0, title: 'sub-agent', messageCount: 2 }],
    open: 'main',
    exportTargets: ['canonical', 'anthropic'],
  },
})

const downloaded = (fileName: string): ExportOutcome => ({
  ok: true,
  blob: new Blob(['{}']),
  fileName,
  warnings: [],
})

/** Exports once and waits for the "Downloaded" notice. */
async function exportOnce(fileName = 'a.after.json') {
  const pending = useStore.getState().exportAfter('canonical')
  fake.exports.shift()!(downloaded(fileName))
  await pending
  expect(useStore.getState().exportNotice?.text).toBe(`Downloaded ${fileName}`)
}

beforeEach(async () => {
  useStore.setState(useStore.getInitialState(), true)
  fake.exports.length = 0
  download.mockClear()
  fake.getDefaults.mockResolvedValue({ encoding: 'o200k_base', summarizer: 'extractive', stages: [] })
  fake.importText.mockImplementation(async (_text, fileName) => imported(fileName, 1))
  fake.openConversation.mockImplementation(async (which) => imported(`a.jsonl#${String(which)}`, 1))
  await useStore.getState().loadText('{}', 'a.jsonl')
})

describe('export notice', () => {
  it('says what was downloaded and can be dismissed', async () => {
    await exportOnce('a.after.canonical.json')
    expect(download).toHaveBeenCalledTimes(1)
    useStore.getState().dismissExportNotice()
    expect(useStore.getState().exportNotice).toBeNull()
  })

  it('clears when another transcript is loaded', async () => {
    await exportOnce()
    await useStore.getState().loadText('{}', 'b.jsonl')
    expect(useStore.getState().info?.fileName).toBe('b.jsonl')
    expect(useStore.getState().exportNotice).toBeNull()
  })

  it('clears when a load starts, even one that fails', async () => {
    await exportOnce()
    fake.importText.mockResolvedValueOnce({ ok: false, error: { message: 'invalid JSON' } })
    await useStore.getState().loadText('{', 'bad.json')
    expect(useStore.getState().info?.fileName).toBe('a.jsonl')
    expect(useStore.getState().exportNotice).toBeNull()
  })

  it('clears when another conversation of the file is opened', async () => {
    await exportOnce()
    await useStore.getState().openConversation(0)
    expect(useStore.getState().info?.fileName).toBe('a.jsonl#0')
    expect(useStore.getState().exportNotice).toBeNull()
  })

  it('clears when the After mode or the recorded compaction changes', async () => {
    await exportOnce()
    useStore.getState().setAfterMode('recorded')
    expect(useStore.getState().exportNotice).toBeNull()
    await exportOnce()
    useStore.getState().setRecordedCompaction(0)
    expect(useStore.getState().exportNotice).toBeNull()
    await exportOnce()
    useStore.getState().setAfterMode('simulated')
    expect(useStore.getState().exportNotice).toBeNull()
  })

  it('an export that finishes after the After changed downloads but leaves no notice', async () => {
    const pending = useStore.getState().exportAfter('canonical')
    expect(useStore.getState().exporting).toBe(true)
    useStore.getState().setAfterMode('recorded')
    fake.exports.shift()!(downloaded('a.after.json'))
    await pending
    expect(download).toHaveBeenCalledTimes(1)
    expect(useStore.getState().exporting).toBe(false)
    expect(useStore.getState().exportNotice).toBeNull()
  })

  it('keeps the notice while nothing about the After changes', async () => {
    await exportOnce()
    useStore.setState({ selection: null })
    expect(useStore.getState().exportNotice?.text).toBe('Downloaded a.after.json')
  })
})

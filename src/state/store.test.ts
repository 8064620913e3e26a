import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { PipelineConfig } from '../engine/model'
import type { ImportOutcome, RunOutcome, RunView } from '../worker/protocol'

/** A controllable fake engine: each run waits until the test resolves it. */
const fake = vi.hoisted(() => {
  const pending: { config: PipelineConfig; runId: number; resolve: (o: RunOutcome) => void }[] = []
  return {
    pending,
    importText: vi.fn<(text: string, fileName: string) => Promise<ImportOutcome>>(),
    getDefaults: vi.fn<() => Promise<PipelineConfig>>(),
    run: vi.fn((config: PipelineConfig, runId: number) => new Promise<RunOutcome>((resolve) => pending.push({ config, runId, resolve }))),
  }
})

vi.mock('../app/engine-client', () => ({ getEngine: () => fake, restartEngine: vi.fn() }))

const { useStore } = await import('./store')
const { formatImportError } = await import('./selectors')

const DEFAULTS: PipelineConfig = {
  encoding: 'o200k_base',
  summarizer: 'extractive',
  stages: [{ id: 'summarize', enabled: true, params: { keep_last: 20, compact_after: 40 } }],
}

function viewFor(runId: number): RunView {
  return {
    runId,
    encoding: 'o200k_base',
    before: { rows: [], totals: { messages: 1, tokens: 100, overheadTokens: 0 } },
    after: { rows: [], totals: { messages: 1, tokens: 100 - runId, overheadTokens: 0 } },
    passes: [],
    stages: [],
    checks: { before: [], after: [] },
    warnings: [],
  }
}

const okImport = (fileName: string): ImportOutcome => ({
  ok: true,
  info: {
    fileName,
    format: 'openai-chat',
    messageCount: 1,
    recordedCompactions: [],
    warnings: [],
    branches: [],
    sidechains: [],
    open: 'main',
    exportTargets: ['canonical', 'openai-chat'],
  },
})

const flush = () => new Promise((r) => setTimeout(r, 0))

beforeEach(() => {
  useStore.setState(useStore.getInitialState(), true)
  fake.pending.length = 0
  fake.run.mockClear()
  fake.getDefaults.mockResolvedValue(structuredClone(DEFAULTS))
  fake.importText.mockImplementation(async (_text, fileName) => okImport(fileName))
})

afterEach(() => {
  // Settle leftovers so no run of one test leaks into the next.
  for (const p of fake.pending.splice(0)) p.resolve({ ok: false, error: 'cancelled', cancelled: true })
})

describe('store', () => {
  it('coalesces re-runs while a slider is dragged and shows only the latest result', async () => {
    await useStore.getState().loadText('{}', 'a.json')
    await flush()
    expect(fake.run).toHaveBeenCalledTimes(1)

    for (const v of [10, 11, 12]) useStore.getState().setStageParam('summarize', 'keep_last', v)
    // The first run is still in flight: the drag queues nothing new yet.
    expect(fake.run).toHaveBeenCalledTimes(1)
    expect(useStore.getState().runStatus).toBe('running')

    fake.pending[0]!.resolve({ ok: true, view: viewFor(fake.pending[0]!.runId) })
    await flush()
    // The stale result is dropped; exactly one follow-up run carries the latest value.
    expect(useStore.getState().run).toBeNull()
    expect(fake.run).toHaveBeenCalledTimes(2)
    const second = fake.pending[1]!
    expect(second.config.stages[0]?.params).toEqual({ keep_last: 12, compact_after: 40 })

    second.resolve({ ok: true, view: viewFor(second.runId) })
    await flush()
    expect(useStore.getState().run?.runId).toBe(second.runId)
    expect(useStore.getState().runStatus).toBe('done')
    expect(useStore.getState().loading).toBeNull()
  })

  it('keeps the previous transcript and run when an import fails', async () => {
    await useStore.getState().loadText('{}', 'good.json')
    await flush()
    fake.pending[0]!.resolve({ ok: true, view: viewFor(fake.pending[0]!.runId) })
    await flush()
    const before = useStore.getState()

    fake.importText.mockResolvedValueOnce({ ok: false, error: { message: 'invalid JSON', line: 3 } })
    await useStore.getState().loadText('{', 'bad.json')
    const after = useStore.getState()
    expect(after.info?.fileName).toBe('good.json')
    expect(after.run).toBe(before.run)
    expect(after.importFailure).toEqual({ fileName: 'bad.json', error: { message: 'invalid JSON', line: 3 } })
    expect(fake.run).toHaveBeenCalledTimes(1)

    useStore.getState().dismissImportError()
    expect(useStore.getState().importFailure).toBeNull()
  })

  it('reorders and toggles stages as intents', async () => {
    useStore.setState({
      config: {
        ...DEFAULTS,
        stages: [
          { id: 'dedupe', enabled: true, params: {} },
          { id: 'summarize', enabled: true, params: { keep_last: 20, compact_after: 40 } },
        ],
      },
    })
    useStore.getState().moveStage('summarize', -1)
    useStore.getState().toggleStage('dedupe')
    useStore.getState().moveStage('summarize', -1) // already first: no change
    expect(useStore.getState().config?.stages.map((s) => [s.id, s.enabled])).toEqual([
      ['summarize', true],
      ['dedupe', false],
    ])
    // No transcript loaded: nothing runs.
    expect(fake.run).not.toHaveBeenCalled()
  })
})

describe('formatImportError', () => {
  it('names the file, the line or field, and the reason on one line', () => {
    expect(formatImportError('x.jsonl', { message: 'Unexpected token', line: 3 })).toBe('x.jsonl: line 3: Unexpected token')
    expect(formatImportError('x.json', { message: 'role must be a string', field: 'messages[2].role' })).toBe(
      'x.json: field messages[2].role: role must be a string',
    )
    expect(formatImportError('x.json', { message: 'line 3: bad', line: 3 })).toBe('x.json: line 3: bad')
    expect(formatImportError('x.json', { message: 'unknown format', tried: ['openai-chat', 'claude-code'] })).toBe(
      'x.json: unknown format (tried: openai-chat, claude-code)',
    )
  })
})

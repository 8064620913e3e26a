import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { CalibrationSetting, PipelineConfig } from '../engine/model'
import type { ImportOutcome, ImportProgress, RecordedOutcome, RunOutcome, RunView } from '../worker/protocol'

/** A controllable fake engine: each run waits until the test resolves it. */
const fake = vi.hoisted(() => {
  const pending: { config: PipelineConfig; runId: number; resolve: (o: RunOutcome) => void }[] = []
  return {
    pending,
    importText: vi.fn<(text: string, fileName: string) => Promise<ImportOutcome>>(),
    importBlob: vi.fn<(blob: Blob, fileName: string, onProgress?: (p: ImportProgress) => void) => Promise<ImportOutcome>>(),
    abortImport: vi.fn(async () => {}),
    runRecorded: vi.fn<(encoding: string, compaction?: number, calibration?: CalibrationSetting) => Promise<RecordedOutcome>>(),
    getDefaults: vi.fn<() => Promise<PipelineConfig>>(),
    run: vi.fn((config: PipelineConfig, runId: number) => new Promise<RunOutcome>((resolve) => pending.push({ config, runId, resolve }))),
    getRows: vi.fn<(runId: number, side: 'before' | 'after', from: number, count: number) => Promise<RunView['before']['rows'] | null>>(),
  }
})

vi.mock('../app/engine-client', () => ({ getEngine: () => fake, restartEngine: vi.fn() }))
// comlink's proxy marks a callback for transfer; the fake engine calls it directly.
vi.mock('comlink', () => ({ proxy: <T>(fn: T) => fn }))

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
    notes: [],
    branches: [],
    branchCount: 0,
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
  fake.getRows.mockReset()
  fake.runRecorded.mockReset()
  fake.importBlob.mockReset()
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

  it('fetches no Before pages of a view a newer request made stale', async () => {
    await useStore.getState().loadText('{}', 'a.json')
    await flush()
    useStore.getState().setStageParam('summarize', 'keep_last', 10)
    // The first run answers with its Before rows cut to a first page, after the drag moved on.
    fake.pending[0]!.resolve({ ok: true, view: { ...viewFor(fake.pending[0]!.runId), beforeRowsTotal: 5000 } })
    await flush()
    expect(fake.getRows).not.toHaveBeenCalled()
    expect(fake.run).toHaveBeenCalledTimes(2)
    expect(useStore.getState().run).toBeNull()
  })

  it('a hard cancel re-imports into the fresh worker without starting the cancelled run again', async () => {
    await useStore.getState().loadText('{}', 'slow.json')
    await flush()
    expect(fake.run).toHaveBeenCalledTimes(1)
    expect(useStore.getState().runStatus).toBe('running')
    const imports = fake.importText.mock.calls.length

    await useStore.getState().cancelRun()
    await flush()
    // The transcript is back in the (new) worker, but no run: the page waits for a setting.
    expect(fake.importText.mock.calls.length).toBe(imports + 1)
    expect(fake.run).toHaveBeenCalledTimes(1)
    const s = useStore.getState()
    expect(s.info?.fileName).toBe('slow.json')
    expect(s.loading).toBeNull()
    expect(s.runStatus).toBe('idle')
    expect(s.runError).toBe('Run cancelled. Run it again, or change a setting first.')

    useStore.getState().setStageParam('summarize', 'keep_last', 12)
    await flush()
    expect(fake.run).toHaveBeenCalledTimes(2)
    expect(fake.pending[1]!.config.stages[0]?.params).toEqual({ keep_last: 12, compact_after: 40 })
  })

  it('runs a newer request when the call in flight throws, instead of waiting forever', async () => {
    let failFirst: (e: Error) => void = () => {}
    fake.run.mockImplementationOnce(() => new Promise<RunOutcome>((_, reject) => (failFirst = reject)))
    await useStore.getState().loadText('{}', 'a.json')
    await flush()
    expect(fake.run).toHaveBeenCalledTimes(1)
    useStore.getState().setStageParam('summarize', 'keep_last', 7)
    failFirst(new Error('worker crashed'))
    await flush()
    // The failed call's error is not shown: the newer request runs and decides.
    expect(fake.run).toHaveBeenCalledTimes(2)
    expect(useStore.getState().runError).toBeNull()
    const next = fake.pending[0]!
    expect(next.config.stages[0]?.params).toEqual({ keep_last: 7, compact_after: 40 })
    next.resolve({ ok: true, view: viewFor(next.runId) })
    await flush()
    expect(useStore.getState().run?.runId).toBe(next.runId)
    expect(useStore.getState().runStatus).toBe('done')
  })

  it('shows the error when the latest call throws', async () => {
    fake.run.mockImplementationOnce(() => Promise.reject(new Error('worker crashed')))
    await useStore.getState().loadText('{}', 'a.json')
    await flush()
    expect(useStore.getState().runStatus).toBe('error')
    expect(useStore.getState().runError).toBe('worker crashed')
    expect(fake.run).toHaveBeenCalledTimes(1)
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

  it('another transcript clears the run shown, its fetched rows and prompts and the selection, and runs', async () => {
    await useStore.getState().loadText('{}', 'a.json')
    await flush()
    fake.pending[0]!.resolve({ ok: true, view: viewFor(fake.pending[0]!.runId) })
    await flush()
    useStore.setState({ details: { 'before:m1': 'missing' }, passTexts: { 'prompt:summarize:1': 'missing' }, tab: 'facts' })
    useStore.getState().selectRow({ side: 'before', id: 'm1' })

    await useStore.getState().loadText('{}', 'b.json')
    const s = useStore.getState()
    expect(s.info?.fileName).toBe('b.json')
    expect(s.run).toBeNull()
    expect(s.details).toEqual({})
    expect(s.passTexts).toEqual({})
    expect(s.selection).toBeNull()
    // The tab is the person's choice, not the transcript's.
    expect(s.tab).toBe('facts')
    expect(s.runStatus).toBe('running')
    expect(fake.run).toHaveBeenCalledTimes(2)
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
    // An unknown-format error from detection lists its formats apart: the line stays short.
    const lookAlike = 'this looks like an iFlow CLI session: not supported yet'
    expect(
      formatImportError('s.jsonl', { message: lookAlike, reason: lookAlike, tried: ['openai-chat', 'claude-code'] }),
    ).toBe(`s.jsonl: ${lookAlike}`)
  })
})

const withCompactions = (fileName: string, count: number): ImportOutcome => {
  const outcome = okImport(fileName)
  if (!outcome.ok) throw new Error('okImport is ok')
  const compaction = { atIndex: 1, summaryText: 's', source: 'claude-code' as const }
  return { ok: true, info: { ...outcome.info, recordedCompactions: Array.from({ length: count }, () => compaction) } }
}

const recordedFor = (compaction: number): RecordedOutcome => ({
  ok: true,
  recorded: { compaction, view: viewFor(50 + compaction), comparison: null },
})

/**
 * Starts loading a file whose import the test drives: `report` sends a progress report, `finish`
 * ends the import with an outcome; `loading` is the page's load call.
 */
async function streamFile(name: string) {
  let onReport: ((p: ImportProgress) => void) | undefined
  let onFinish: ((o: ImportOutcome) => void) | undefined
  fake.importBlob.mockImplementation((_blob, _name, onProgress) => {
    onReport = onProgress
    return new Promise((resolve) => (onFinish = resolve))
  })
  const loading = useStore.getState().loadFile(new File(['{}'], name))
  await flush()
  return {
    report: (p: ImportProgress) => onReport?.(p),
    finish: (o: ImportOutcome) => onFinish?.(o),
    loading,
  }
}

describe('store: streamed files and recorded compactions', () => {
  it('shows streamed progress while a file imports and clears it once applied', async () => {
    const { report, finish, loading } = await streamFile('big.jsonl')
    report({ phase: 'reading', bytes: 10, totalBytes: 100, records: 2 })
    expect(useStore.getState().importProgress).toEqual({
      phase: 'reading',
      bytes: 10,
      totalBytes: 100,
      records: 2,
      fileName: 'big.jsonl',
    })
    finish(okImport('big.jsonl'))
    await loading
    expect(useStore.getState().importProgress).toBeNull()
    expect(useStore.getState().info?.fileName).toBe('big.jsonl')
  })

  it('keeps the streamed head of a file once it is imported, until its first run replaces it', async () => {
    const { report, finish, loading } = await streamFile('big.jsonl')
    report({ phase: 'reading', bytes: 10, totalBytes: 100, records: 2, head: { rows: [], messages: 2 } })
    expect(useStore.getState().importHead?.fileName).toBe('big.jsonl')
    finish(okImport('big.jsonl'))
    await loading
    await flush()
    // Imported, its run in flight: the head is still what the page shows.
    expect(useStore.getState().run).toBeNull()
    expect(useStore.getState().importHead?.fileName).toBe('big.jsonl')
    const run = fake.pending[0]!
    run.resolve({ ok: true, view: viewFor(run.runId) })
    await flush()
    expect(useStore.getState().run?.runId).toBe(run.runId)
    expect(useStore.getState().importHead).toBeNull()
  })

  it('a file chosen while the previous file\'s first run is in flight drops that file\'s head at once', async () => {
    const { report, finish, loading } = await streamFile('big.jsonl')
    report({ phase: 'reading', bytes: 10, totalBytes: 100, records: 2, head: { rows: [], messages: 2 } })
    finish(okImport('big.jsonl'))
    await loading
    await flush()
    expect(useStore.getState().importHead?.fileName).toBe('big.jsonl')
    const next = useStore.getState().loadText('{}', 'pasted.json')
    // The header names the new file from now on: the old file's messages are not shown under it.
    expect(useStore.getState().loadingFile).toBe('pasted.json')
    expect(useStore.getState().importHead).toBeNull()
    await next
    for (const run of fake.pending.splice(0)) run.resolve({ ok: true, view: viewFor(run.runId) })
    await flush()
  })

  it('fetches the recorded view when Recorded mode is chosen, drops stale answers, and forgets it on a new file', async () => {
    const answers: ((o: RecordedOutcome) => void)[] = []
    fake.runRecorded.mockImplementation(() => new Promise((resolve) => answers.push(resolve)))
    fake.importText.mockResolvedValueOnce(withCompactions('cc.jsonl', 2))
    await useStore.getState().loadText('{}', 'cc.jsonl')
    expect(fake.runRecorded).not.toHaveBeenCalled() // Simulated mode needs no recorded view

    useStore.getState().setAfterMode('recorded')
    // The recorded view is counted with the run's calibration setting: absent, auto.
    expect(fake.runRecorded).toHaveBeenLastCalledWith('o200k_base', undefined, undefined)
    useStore.getState().setRecordedCompaction(0)
    expect(fake.runRecorded).toHaveBeenLastCalledWith('o200k_base', 0, undefined)
    // The answer to the first request arrives last-but-one: only the newest one is shown.
    answers[1]!(recordedFor(0))
    answers[0]!(recordedFor(1))
    await flush()
    expect(useStore.getState().recorded?.compaction).toBe(0)
    expect(useStore.getState().recordedStatus).toBe('done')

    // A finished simulation refreshes the comparison.
    fake.pending.at(-1)!.resolve({ ok: true, view: viewFor(fake.pending.at(-1)!.runId) })
    await flush()
    expect(fake.runRecorded).toHaveBeenCalledTimes(3)

    // A transcript without recorded compactions goes back to the simulation.
    await useStore.getState().loadText('{}', 'plain.json')
    expect(useStore.getState().recorded).toBeNull()
    expect(useStore.getState().afterMode).toBe('simulated')
  })

  it('keeps Recorded mode for a next transcript that records compactions too', async () => {
    fake.runRecorded.mockResolvedValue(recordedFor(0))
    fake.importText.mockResolvedValueOnce(withCompactions('a.jsonl', 1))
    await useStore.getState().loadText('{}', 'a.jsonl')
    useStore.getState().setAfterMode('versus')
    await flush()
    fake.importText.mockResolvedValueOnce(withCompactions('b.jsonl', 1))
    await useStore.getState().loadText('{}', 'b.jsonl')
    expect(useStore.getState().afterMode).toBe('versus')
    await flush()
    expect(useStore.getState().recorded?.compaction).toBe(0)
    expect(fake.runRecorded).toHaveBeenCalledTimes(2)
  })
})

describe('store: a newer file supersedes the one being read', () => {
  /** Streamed imports the test answers one by one, in any order, in the order they started. */
  const imports: { fileName: string; report: (p: ImportProgress) => void; finish: (o: ImportOutcome) => void }[] = []
  const state = () => useStore.getState()
  const file = (name: string) => new File(['{}'], name)
  const ok = okImport
  const head = { rows: [], messages: 120 }

  beforeEach(async () => {
    imports.length = 0
    fake.abortImport.mockClear()
    fake.importBlob.mockImplementation((_blob, fileName, onProgress) => {
      return new Promise<ImportOutcome>((finish) => imports.push({ fileName, report: (p) => onProgress?.(p), finish }))
    })
    // A transcript is open, as after the first sample.
    await state().loadText('{}', 'open.json')
    await flush()
  })

  it('starts the second read at once, never applies the first, and names only the file being loaded', async () => {
    const first = state().loadFile(file('first.jsonl'))
    await flush()
    expect(state().loadingFile).toBe('first.jsonl')
    // The open transcript is still what the worker holds until the new file is imported.
    expect(state().info?.fileName).toBe('open.json')
    imports[0]!.report({ phase: 'reading', bytes: 0, totalBytes: 100, head })
    expect(state().importHead?.fileName).toBe('first.jsonl')

    const second = state().loadFile(file('second.jsonl'))
    // At once: the header names the second file, the first one's head and progress are gone.
    expect(state().loadingFile).toBe('second.jsonl')
    expect(state().importHead).toBeNull()
    expect(state().importProgress).toBeNull()
    await first
    await flush()
    expect(fake.abortImport).toHaveBeenCalledTimes(1)
    // The second read started while the first one has not answered.
    expect(imports.map((i) => i.fileName)).toEqual(['first.jsonl', 'second.jsonl'])

    // The abandoned read's late reports and answer change nothing.
    imports[0]!.report({ phase: 'reading', bytes: 50, totalBytes: 100, head })
    imports[0]!.report({ phase: 'reading', bytes: 60, totalBytes: 100, records: 7 })
    imports[0]!.finish(ok('first.jsonl'))
    await flush()
    expect(state().importHead).toBeNull()
    expect(state().importProgress).toBeNull()
    expect(state().info?.fileName).toBe('open.json')
    expect(state().loadingFile).toBe('second.jsonl')
    // Not "Counting tokens and running the pipeline…": nothing of the first file was applied.
    expect(state().loading).toBe('Reading second.jsonl (2 B)…')

    imports[1]!.report({ phase: 'reading', bytes: 0, totalBytes: 100, head })
    expect(state().importHead?.fileName).toBe('second.jsonl')
    imports[1]!.finish(ok('second.jsonl'))
    await second
    await flush()
    expect(state().info?.fileName).toBe('second.jsonl')
    expect(state().loadingFile).toBeNull()
    expect(state().loading).toBe('Counting tokens and running the pipeline…')
    // The head stays until the second file's first run replaces it.
    expect(state().importHead?.fileName).toBe('second.jsonl')
  })

  it('reads only the last of files chosen at once', async () => {
    const a = state().loadFile(file('a.jsonl'))
    await flush()
    const loads = [a, state().loadFile(file('b.jsonl')), state().loadFile(file('c.jsonl'))]
    await flush()
    // a's read had started; b was still waiting its turn when c superseded it.
    expect(imports.map((i) => i.fileName)).toEqual(['a.jsonl', 'c.jsonl'])
    imports[1]!.finish(ok('c.jsonl'))
    await Promise.all(loads)
    expect(state().info?.fileName).toBe('c.jsonl')

    // Chosen before any of their reads started: only the last one is read.
    const more = [state().loadFile(file('d.jsonl')), state().loadFile(file('e.jsonl'))]
    await flush()
    expect(imports.map((i) => i.fileName)).toEqual(['a.jsonl', 'c.jsonl', 'e.jsonl'])
    imports[2]!.finish(ok('e.jsonl'))
    await Promise.all(more)
    expect(state().info?.fileName).toBe('e.jsonl')
    expect(state().loadingFile).toBeNull()
  })

  it('a superseding file that fails leaves the open transcript and names the failed file', async () => {
    void state().loadFile(file('first.jsonl'))
    await flush()
    const second = state().loadFile(file('broken.jsonl'))
    await flush()
    imports[1]!.finish({ ok: false, error: { message: 'not JSON' } })
    await second
    expect(state().info?.fileName).toBe('open.json')
    expect(state().loadingFile).toBeNull()
    expect(state().importFailure).toEqual({ fileName: 'broken.jsonl', error: { message: 'not JSON' } })
  })

  it('pasted text supersedes a file being read', async () => {
    void state().loadFile(file('first.jsonl'))
    await flush()
    await state().loadText('{}', 'pasted.json')
    expect(fake.abortImport).toHaveBeenCalledTimes(1)
    expect(state().info?.fileName).toBe('pasted.json')
    imports[0]!.finish(ok('first.jsonl'))
    await flush()
    expect(state().info?.fileName).toBe('pasted.json')
  })

  it('a sample superseded while it downloads never starts its import', async () => {
    let respond: (r: Response) => void = () => {}
    const fetchMock = vi.fn(() => new Promise<Response>((resolve) => (respond = resolve)))
    vi.stubGlobal('fetch', fetchMock)
    try {
      void state().loadSample('claude-code.jsonl')
      await flush()
      expect(fetchMock).toHaveBeenCalledTimes(1)
      const second = state().loadFile(file('second.jsonl'))
      respond(new Response('{}'))
      await flush()
      expect(imports.map((i) => i.fileName)).toEqual(['second.jsonl'])
      imports[0]!.finish(ok('second.jsonl'))
      await second
      expect(state().info?.fileName).toBe('second.jsonl')
    } finally {
      vi.unstubAllGlobals()
    }
  })

  it('opening a conversation of the open file names no file being loaded', async () => {
    fake.importText.mockClear()
    const opening = state().openConversation('main')
    expect(state().loadingFile).toBeNull()
    await opening
    expect(state().loadingFile).toBeNull()
  })
})

describe('problemCount', () => {
  it('reads the count the worker sent when it cut the list, else the list’s length', async () => {
    const { problemCount } = await import('./selectors')
    const problem = { rule: 'orphan-tool-result' as const, messageIds: ['t1'], message: 'result t1 answers no call' }
    const cut = { checks: { before: [problem], after: [], problemCounts: { before: 200_000, after: 0 } } }
    expect(problemCount(cut, 'before')).toBe(200_000)
    expect(problemCount(cut, 'after')).toBe(0)
    expect(problemCount({ checks: { before: [problem, problem], after: [problem] } }, 'before')).toBe(2)
  })
})

import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { importTranscript } from '../engine/formats'
import { DEFAULT_PIPELINE, runPipeline } from '../engine/pipeline'
import { loadCounter } from '../engine/tokens/count'
import { longChat } from '../../test/hostile'
import { createEngineApi } from './engine-api'

/**
 * The page's runs of a long transcript leave the failure-mode checks for later (the run is shown
 * first); `getFailureModes(runId)` answers them for the last run. Short transcripts get them with
 * the run, as before.
 */
describe('failure-mode checks after the run', () => {
  it('a long transcript\'s view leaves them pending; getFailureModes answers what the engine finds', async () => {
    const text = longChat(1_200)
    const api = createEngineApi()
    expect(api.importText(text, 'long.json').ok).toBe(true)
    const out = await api.run(api.getDefaults(), 7)
    if (!out.ok) throw new Error(out.error)
    expect(out.view.checks.failureModesPending).toBe(true)
    expect(out.view.checks.failureModes).toBeUndefined()
    expect(await api.getFailureModes(6)).toBeNull()

    const imported = importTranscript(text, { fileName: 'long.json' })
    if (!imported.ok) throw new Error(imported.error.message)
    const direct = await runPipeline(imported.transcript, DEFAULT_PIPELINE, { counter: await loadCounter('o200k_base') })
    // The chat is long enough for the default summarize to fire and for the checks to find something.
    expect(direct.passes.length).toBeGreaterThan(0)
    expect(direct.checks.failureModes?.length).toBeGreaterThan(0)
    expect(await api.getFailureModes(7)).toEqual(direct.checks.failureModes)
  })

  it('a short transcript\'s view carries them', async () => {
    const api = createEngineApi()
    expect(api.importText(readFileSync('public/samples/claude-code.jsonl', 'utf8'), 'claude-code.jsonl').ok).toBe(true)
    const out = await api.run(api.getDefaults(), 1)
    if (!out.ok) throw new Error(out.error)
    expect(out.view.checks.failureModesPending).toBeUndefined()
    expect(out.view.checks.failureModes?.length).toBeGreaterThan(0)
  })
})

import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { createEngineApi } from './engine-api'

const FIXTURE = readFileSync('test/fixtures/report/hostile-chat.json', 'utf8')

describe('engineApi.report', () => {
  it('before any run it says so', async () => {
    const api = createEngineApi()
    expect(await api.report(api.getDefaults(), { patterns: true, strings: [] }, false)).toEqual({ ok: false, error: 'no transcript loaded' })
    expect(api.importText(FIXTURE, 'hostile-chat.json').ok).toBe(true)
    expect(await api.report(api.getDefaults(), { patterns: true, strings: [] }, false)).toEqual({ ok: false, error: 'Nothing has run yet.' })
  })

  it('counts what redaction replaces, then saves <name>.report.html with the same counts', async () => {
    const api = createEngineApi()
    expect(api.importText(FIXTURE, 'hostile-chat.json').ok).toBe(true)
    const config = api.getDefaults()
    expect((await api.run(config, 1)).ok).toBe(true)
    // The fixture holds one key, one e-mail address and one home directory (/home/ana).
    const preview = await api.report(config, { patterns: true, strings: [] }, false)
    expect(preview).toEqual({ ok: true, redactions: { keys: 1, emails: 1, homes: 1, strings: 0 }, described: '1 key, 1 e-mail address, 1 home path' })
    const saved = await api.report(config, { patterns: true, strings: [] }, true)
    if (!saved.ok || !saved.file) throw new Error('no file')
    expect(saved.described).toBe('1 key, 1 e-mail address, 1 home path')
    expect(saved.file.fileName).toBe('hostile-chat.report.html')
    const html = await saved.file.blob.text()
    expect(html).toContain('[key-1]')
    expect(html).not.toContain('ana.silva@example.org')
    expect(html).toContain('<svg class="timeline"')
    const plain = await api.report(config, { patterns: false, strings: [] }, false)
    expect(plain).toEqual({ ok: true, redactions: { keys: 0, emails: 0, homes: 0, strings: 0 }, described: 'nothing to redact' })
  })
})

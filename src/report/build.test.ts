import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tokenTimeline } from '../engine/analysis/turns'
import { factTable } from '../engine/facts/table'
import { importTranscript } from '../engine/formats/index'
import type { PipelineConfig, Transcript } from '../engine/model'
import { DEFAULT_PIPELINE, runPipeline } from '../engine/pipeline'
import { loadCounter } from '../engine/tokens/count'
import { buildReport, escapeHtml, REPORT_SECTIONS, reportFileName } from './build'

const FIXTURE = join(__dirname, '../../test/fixtures/report/hostile-chat.json')

function load(text: string, fileName: string): Transcript {
  const imported = importTranscript(text, { fileName })
  if (!imported.ok) throw new Error(imported.error.message)
  return imported.transcript
}

/** The default pipeline with summarize at keep_last 2, compact_after 4: the 15-message fixture makes passes. */
function smallConfig(): PipelineConfig {
  const config = structuredClone(DEFAULT_PIPELINE)
  for (const s of config.stages) if (s.id === 'summarize') s.params = { ...s.params, keep_last: 2, compact_after: 4 }
  return config
}

async function report(fileName: string, redact?: { patterns: boolean; strings: string[] }) {
  const transcript = load(readFileSync(FIXTURE, 'utf8'), fileName)
  const config = smallConfig()
  const counter = await loadCounter(config.encoding)
  const result = await runPipeline(transcript, config, { counter })
  const timeline = await tokenTimeline(transcript, config, { counter })
  const input = { fileName, transcript, config, result, facts: factTable(result), timeline }
  return { result, out: buildReport(redact ? { ...input, redact } : input) }
}

describe('escapeHtml', () => {
  it('turns the five HTML-special characters into entities', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;')
  })
})

describe('reportFileName', () => {
  it('replaces the extension by .report.html and drops folders', () => {
    expect(reportFileName('session.jsonl')).toBe('session.report.html')
    expect(reportFileName('/tmp/x/chat.v2.json')).toBe('chat.v2.report.html')
    expect(reportFileName('notes')).toBe('notes.report.html')
  })
})

describe('buildReport', () => {
  it('is one self-contained document: a CSP meta, no script, no URL, every section with its heading', async () => {
    const { out, result } = await report('hostile-chat.json')
    const { html } = out
    expect(result.passes.length).toBeGreaterThan(0)
    expect(html.startsWith('<!doctype html>')).toBe(true)
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`)
    expect(html).not.toMatch(/<script/i)
    expect(html).not.toMatch(/https?:|\/\/[a-z]|url\(|@import|<link|<img|<iframe/i)
    for (const { id, heading } of REPORT_SECTIONS) {
      expect(html).toContain(`<section id="${id}" aria-labelledby="${id}-h"><h2 id="${id}-h">${escapeHtml(heading)}</h2>`)
    }
    expect(html).toContain('<dt>Format</dt><dd>openai-chat</dd>')
    expect(html).toContain('The After is simulated')
    expect(html).toContain('<code>keep_last</code> 2 messages')
    expect(html).toContain('<code>compact_after</code> 4 messages')
    expect(html).toContain(`<dt>Passes</dt><dd>${result.passes.length}</dd>`)
    expect(html).toContain('<svg class="timeline"')
    // The legend's words are the page's (report/kinds.ts).
    expect(html).toContain('Older messages folded into one summary message by a compaction pass.')
  })

  it('shows planted markup, a closing textarea and quotes as text, never as markup', async () => {
    const { html } = (await report(`a"b'<c>.json`)).out
    expect(html).toContain('&#60;script&#62;window.__pwned=1&#60;/script&#62;')
    expect(html).toContain('&#60;img src=x onerror=&#34;window.__pwned=2&#34;&#62;')
    expect(html).toContain('&#60;/textarea&#62;')
    expect(html).toContain('class=&#39;x&#39; title=&#34;y&#34;')
    expect(html).not.toMatch(/<\/?textarea/i)
    expect(html).not.toMatch(/onerror="/)
    // In the title, in a heading and in an attribute (a chip's title names the file nowhere, the header does).
    expect(html).toContain('<title>Compaction report: a&#34;b&#39;&#60;c&#62;.json</title>')
    expect(html).not.toContain(`a"b'<c>`)
  })

  it('with redaction, a key, an e-mail address and a home path are replaced everywhere and counted', async () => {
    const { html, redactions } = (await report('hostile-chat.json', { patterns: true, strings: ['Widget shop'] })).out
    expect(html).not.toContain('sk-proj-AbCdEfGhIjKlMnOpQrStUv12')
    expect(html).not.toContain('ana.silva@example.org')
    expect(html).not.toContain('/home/ana/')
    expect(html).not.toContain('Widget shop')
    expect(html).toContain('[key-1]')
    expect(html).toContain('[email-1]')
    expect(html).toContain('/home/[user-1]/shop/footer.html')
    expect(html).toContain('[redacted-1]')
    expect(redactions).toEqual({ keys: 1, emails: 1, homes: 1, strings: 1 })
  })

  it('caps a long message at 20,000 code points, shows the first 600 and says how many more', async () => {
    const long = '😀'.repeat(25_000)
    const transcript = load(JSON.stringify({ messages: [{ role: 'user', content: long }, { role: 'assistant', content: 'ok' }] }), 'long.json')
    const config = structuredClone(DEFAULT_PIPELINE)
    for (const s of config.stages) s.enabled = false
    const counter = await loadCounter(config.encoding)
    const result = await runPipeline(transcript, config, { counter })
    const { html } = buildReport({ fileName: 'long.json', transcript, config, result })
    expect(html).toContain(`<pre>${'😀'.repeat(600)}</pre><details><summary>… 19,400 more characters</summary><pre>${'😀'.repeat(19_400)}</pre></details>`)
    expect(html).toContain('<p class="cut">… 5,000 more characters not in this report</p>')
    // The unchanged After row links to the Before instead of repeating the text.
    expect(html).toContain('<p class="same">Unchanged: <a href="#b-0">Before #0</a></p>')
    expect(html.split('😀').length - 1).toBe(20_000)
    expect(html).toContain('The facts table was not made for this report.')
  })
})

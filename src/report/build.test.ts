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
    // A count of 1 reads in the singular: the default pipeline's prune-tool-results keeps 1 step.
    expect(html).toContain('<code>keep_steps</code> 1 step</li>')
    expect(html).not.toMatch(/\b1 (?:steps|messages|tokens|turns|passes)\b/)
    expect(html).toContain(`<dt>Passes</dt><dd>${result.passes.length}</dd>`)
    expect(html).toContain('<svg class="timeline"')
    // The legend's words are the page's (report/kinds.ts).
    expect(html).toContain('Older messages folded into one summary message by a compaction pass.')
  })

  it('says how its token figures were counted, in the page’s words, with the settings and the totals', async () => {
    const { out } = await report('hostile-chat.json')
    // The fixture records no usage and no preset set an overhead: raw counts.
    expect(out.html).toContain('<dt>Token counts</dt><dd>raw o200k_base counts</dd>')
    expect(out.html).toContain('<dt>Counted</dt><dd>raw o200k_base counts</dd>')
    const transcript = load(readFileSync(FIXTURE, 'utf8'), 'hostile-chat.json')
    const config: PipelineConfig = { ...smallConfig(), calibration: { mode: 'manual', overhead: 12_000, ratio: 1.25 } }
    const result = await runPipeline(transcript, config, { counter: await loadCounter(config.encoding) })
    const { html } = buildReport({ fileName: 'hostile-chat.json', transcript, config, result })
    expect(html).toContain('<dt>Token counts</dt><dd>calibrated by hand (overhead 12,000 tokens, ratio 1.25)</dd>')
    expect(html).toContain('<dt>Counted</dt><dd>calibrated by hand (overhead 12,000 tokens, ratio 1.25)</dd>')
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

  it('names the summarizer endpoint without its credentials, with or without redaction', async () => {
    const transcript = load(readFileSync(FIXTURE, 'utf8'), 'hostile-chat.json')
    const config = smallConfig()
    const counter = await loadCounter(config.encoding)
    const result = await runPipeline(transcript, config, { counter })
    const timeline = await tokenTimeline(transcript, config, { counter })
    config.summarizer = 'openai-compatible'
    config.summarizerOptions = { baseUrl: 'https://ana:pw-s3cret-9@llm.example/v1?api_key=q-s3cret-8', model: 'm1' }
    const input = { fileName: 'hostile-chat.json', transcript, config, result, facts: factTable(result), timeline }
    for (const out of [buildReport(input), buildReport({ ...input, redact: { patterns: true, strings: [] } })]) {
      expect(out.html).toContain('openai-compatible (https://***@llm.example/v1?api_key=***, model m1)')
      expect(out.html).not.toContain('s3cret')
    }
  })

  it('names the saved file after the transcript, redacted like the report', async () => {
    expect((await report('hostile-chat.json')).out.fileName).toBe('hostile-chat.report.html')
    const redacted = (await report('acme-payroll.json', { patterns: true, strings: ['acme'] })).out
    expect(redacted.fileName).toBe('[redacted-1]-payroll.report.html')
  })

  it('with redaction, a secret cut through by a capped fact or row leaves no head of itself behind', async () => {
    // The goal fact (the first user message) is capped at 300 code points: each secret straddles it.
    const pad = 'x'.repeat(280)
    const secrets = ['alice.smith@example.com', 'AKIAIOSFODNN7EXAMPLE', 'ZEBRA-CROSSING-77']
    const messages = secrets.flatMap((secret) => [
      { role: 'user', content: `${pad} ${secret} more text after it` },
      { role: 'assistant', content: 'Noted.' },
    ])
    const transcript = load(JSON.stringify({ messages }), 'cut.json')
    const config = smallConfig()
    const counter = await loadCounter(config.encoding)
    const result = await runPipeline(transcript, config, { counter })
    const timeline = await tokenTimeline(transcript, config, { counter })
    const { html, redactions } = buildReport({
      fileName: 'cut.json',
      transcript,
      config,
      result,
      facts: factTable(result),
      timeline,
      redact: { patterns: true, strings: ['ZEBRA-CROSSING-77'] },
    })
    // Every head of 4 or more code units of each secret is gone (the shortest one replaced, MIN_HEAD).
    for (const secret of secrets) expect(html).not.toContain(secret.slice(0, 4))
    expect(redactions).toEqual({ keys: 1, emails: 1, homes: 0, strings: 1 })
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
    // The unchanged After row links to the Before instead of repeating the text, and names it by number.
    expect(html).toContain('<p class="same">Unchanged: <a href="#b-0">Before #0</a></p>')
    expect(html).toContain('<p class="why">Message #0, unchanged.</p>')
    expect(html.split('😀').length - 1).toBe(20_000)
    expect(html).toContain('The facts table was not made for this report.')
  })

  it('names messages by their numbers and lists the facts that matter first, noise folded with its count', async () => {
    // Five messages, every stage off: the After is the Before, message for message.
    const transcript = load(readFileSync(join(__dirname, '../../test/fixtures/report/facts-chat.json'), 'utf8'), 'facts-chat.json')
    const config = structuredClone(DEFAULT_PIPELINE)
    for (const s of config.stages) s.enabled = false
    const counter = await loadCounter(config.encoding)
    const result = await runPipeline(transcript, config, { counter })
    const { html } = buildReport({ fileName: 'facts-chat.json', transcript, config, result, facts: factTable(result) })
    const ids = result.before.messages.map((m) => m.id)
    const facts = html.slice(html.indexOf('<section id="facts"'), html.indexOf('<section id="timeline"'))
    // No message id anywhere a person reads: verdicts and After rows use the columns' numbers.
    for (const id of ids) expect(facts).not.toContain(`(${id}`)
    expect(html).toContain('<p class="why">Message #4, unchanged.</p>')
    expect(facts).toContain('<td>survives in 2 messages after (Before #1 → After #1, Before #4 → After #4)</td>')
    expect(facts).toContain('<td>survives in 1 message after (Before #1 → After #1)</td>')
    // At risk: the goal, the user's order number and postal code, then the file name seen in tool output.
    const table = facts.slice(0, facts.indexOf('<details class="noise">'))
    const order = ['Ship order ORD-58213 to postal code 80331.', 'ORD-58213', '80331', 'label.pdf'].map((f) =>
      table.indexOf(`<td><code>${f}</code></td>`),
    )
    expect(order.every((at) => at >= 0)).toBe(true)
    expect([...order].sort((a, b) => a - b)).toEqual(order)
    expect(table).not.toContain('Jun 20')
    // The listing's date is noise: under a <details> with the count, still listed.
    const noise = facts.slice(facts.indexOf('<details class="noise">'))
    expect(noise.startsWith('<details class="noise"><summary>1 noise fact — measurements of tool runs, not at risk</summary><table>')).toBe(true)
    expect(noise).toContain('<td><code>Jun 20</code></td><td>date</td><td>noise</td><td>verbatim</td><td>survives in 1 message after (Before #3 → After #3)</td>')
    expect(facts).toContain('<p>4 facts at risk, 4 survive (4 verbatim, 0 pinned, 0 only in a summary); 1 noise row.</p>')
  })
})

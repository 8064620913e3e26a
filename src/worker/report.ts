/**
 * The worker's side of the HTML report (src/report): the last full run of the open transcript,
 * its facts table and its token timeline under the page's config, built into one HTML file.
 * The timeline's prefix runs use cached summaries only (turns.ts), so nothing is sent.
 */
import { tokenTimeline } from '../engine/analysis/turns'
import { factTable } from '../engine/facts/table'
import type { PipelineConfig } from '../engine/model'
import { failureModesOf } from '../engine/pipeline'
import { loadCounter } from '../engine/tokens/count'
import { buildReport } from '../report/build'
import { describeRedactions, type RedactOptions } from '../report/redact'
import { failureText } from '../engine/failure-text'
import type { ReportOutcome } from './protocol'
import type { TranscriptSession } from './session'

/**
 * The report of `session`'s last run under `config` (the config that run was made with) and
 * `redact`. `save: false` builds it without the timeline, for the redaction counts only;
 * `save: true` also answers the file (`<name>.report.html`). Never throws.
 */
export async function reportOutcome(
  session: TranscriptSession,
  config: PipelineConfig,
  redact: RedactOptions,
  save: boolean,
): Promise<ReportOutcome> {
  const result = session.result
  if (!result) return { ok: false, error: 'Nothing has run yet.' }
  try {
    // The page's runs leave the failure-mode checks for later: the report lists them.
    failureModesOf(result)
    const input = {
      fileName: session.fileName,
      transcript: session.transcript,
      config,
      result,
      redact,
      facts: factTable(result, session.factTables.foundIndexOf(result.before.messages)),
    }
    if (!save) {
      const { redactions } = buildReport(input)
      return { ok: true, redactions, described: describeRedactions(redactions) }
    }
    const counter = await loadCounter(config.encoding)
    const timeline = await tokenTimeline(session.transcript, config, {
      counter,
      summarizer: session.turns.summarizers.of(config),
      skipChecks: true,
    })
    if (session.disposed) return { ok: false, error: 'cancelled' }
    const { html, redactions, fileName } = buildReport({ ...input, timeline, createdAt: new Date().toISOString() })
    const file = { blob: new Blob([html], { type: 'text/html' }), fileName }
    return { ok: true, redactions, described: describeRedactions(redactions), file }
  } catch (e) {
    return { ok: false, error: failureText(e) }
  }
}

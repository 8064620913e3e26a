/**
 * The `sweep` subcommand's output: the grid as JSON or as human tables.
 * Parsing the axes is the engine's (`parseSweepAxis`); running them is `sweep`.
 */
import { calibrationLabel, RAW_COUNTS } from '../engine/usage/calibration-terms'
import type { Transcript } from '../engine/model'
import { overWindowText } from '../engine/analysis/peak-context'
import { SWEEP_PARAMS, type SweepCellResult, type SweepResult } from '../engine/analysis/sweep'

/**
 * The `--json` object: `{format, x, y, cells, tokensBefore, window, factsTotal, enabledStages}`
 * (a cell's `peakTokens` and `overWindow`: `SweepCellResult`), and
 * `note` when the sweep ran another summarizer than the flags asked for (`sweepConfigOf`).
 */
export function sweepJson(transcript: Transcript, result: SweepResult, note?: string) {
  return {
    format: transcript.format,
    x: result.x,
    y: result.y,
    cells: result.cells,
    tokensBefore: result.tokensBefore,
    window: result.window,
    factsTotal: result.factsTotal,
    enabledStages: result.enabledStages,
    ...(note === undefined ? {} : { note }),
  }
}

/** One table: a header of x values, a row per y value, `value(cell)` right-aligned in each cell. */
function table(result: SweepResult, title: string, value: (cell: SweepCellResult) => string): string[] {
  const head = `${result.y.param} \\ ${result.x.param}`
  const rows = result.y.values.map((yv, yi) => [
    String(yv),
    ...result.x.values.map((_, xi) => {
      const cell = result.cells[yi]?.[xi]
      if (!cell) return '–'
      if (!cell.ok) return 'invalid'
      return `${value(cell)}${cell.overWindow ? '!' : ''}${cell.note ? '*' : ''}`
    }),
  ])
  const header = [head, ...result.x.values.map(String)]
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
  return [title, `  ${line(header)}`, ...rows.map((r) => `  ${line(r)}`)]
}

/**
 * The human form: what was swept, then three tables (tokens after with % saved, passes, facts
 * lost), rows = y values, columns = x values; `note` (a substituted summarizer) under the
 * header. `*` marks a cell whose values the engine defaulted or clamped, `!` a cell whose context
 * goes over the model window (`overWindowText`), `invalid` a cell a stage refused; all are
 * explained below the tables.
 */
export function sweepText(name: string, transcript: Transcript, result: SweepResult, note?: string): string {
  const unit = (p: keyof typeof SWEEP_PARAMS) => `${SWEEP_PARAMS[p].stage}, ${SWEEP_PARAMS[p].unit}`
  const lines = [
    `${name}: ${transcript.format}${transcript.title ? ` — ${transcript.title}` : ''}`,
    `sweep   x = ${result.x.param} (${unit(result.x.param)}), y = ${result.y.param} (${unit(result.y.param)}): ` +
      `${result.x.values.length} × ${result.y.values.length} cells`,
    `before  ${result.tokensBefore} tokens, ${result.factsTotal} facts`,
    `        ${calibrationLabel(result.calibration ?? RAW_COUNTS, result.encoding ?? 'o200k_base')}`,
  ]
  if (result.enabledStages.length > 0) lines.push(`switched on for the sweep: ${result.enabledStages.join(', ')}`)
  if (note !== undefined) lines.push(`note: ${note}`)
  lines.push('')
  lines.push(...table(result, 'tokens after (% saved)', (c) => `${c.tokensAfter} (${c.percentSaved}%)`))
  lines.push('')
  lines.push(...table(result, 'passes', (c) => String(c.passes)))
  lines.push('')
  lines.push(...table(result, `important facts lost (of ${result.factsTotal})`, (c) => String(c.factsLost)))
  lines.push('')
  lines.push(...table(result, 'needed facts lost (a later message needed them)', (c) => String(c.neededLost)))
  const explained: string[] = []
  const seen = new Set<string>()
  for (const row of result.cells) {
    for (const cell of row) {
      if (!cell) continue
      if (cell.ok && cell.overWindow) {
        explained.push(
          `! ${result.x.param} ${cell.x}, ${result.y.param} ${cell.y}: peak context ${cell.peakTokens} tokens, ${overWindowText(result.window)}`,
        )
      }
      const why = cell.ok ? cell.note : cell.reason
      if (why === undefined) continue
      const text = `${cell.ok ? '*' : 'invalid'} ${result.x.param} ${cell.x}, ${result.y.param} ${cell.y}: ${why}`
      if (!seen.has(text)) explained.push(text)
      seen.add(text)
    }
  }
  if (explained.length > 0) lines.push('', ...explained)
  return lines.join('\n')
}

/**
 * Test helpers shared by the importer tests: the registry contract one importer must meet on a
 * real-shape file of its format. Not part of the engine's public surface (only tests import it).
 */
import { detectFormat } from './detect'
import { importTranscript } from './index'
import { parseJson, parseJsonl } from './json'
import { importersInOrder } from './registry'
import type { FormatImporter } from './types'

/** The parsed input an importer's `detect` receives for a text of its container. */
function parsedFor(imp: FormatImporter, text: string): unknown {
  if (imp.container === 'text') return text
  if (imp.container === 'jsonl') return parseJsonl(text).records
  const parsed = parseJson(text)
  if (!parsed.ok) throw new Error('fixture is not JSON')
  return parsed.value
}

/**
 * How a registered importer breaks the registry contract on `text`, a real-shape file of its
 * format (one line per breach; empty when it holds): its own `detect` accepts the text, every
 * detector of the same container before it in priority order rejects it, detection picks it, and
 * `importTranscript` imports the text as its format id. Every registered importer's test calls
 * this (registry.test.ts checks that each one does).
 */
export function registryContractViolations(imp: FormatImporter, text: string): string[] {
  const out: string[] = []
  const key = `${imp.id} ${imp.container}`
  const own = imp.detect(parsedFor(imp, text))
  if (own !== true) out.push(`${key} rejects its own fixture: ${own}`)
  const inOrder = importersInOrder()
  const at = inOrder.indexOf(imp)
  if (at < 0) return [...out, `${key} is not registered`]
  for (const other of inOrder.slice(0, at)) {
    if (other.container !== imp.container) continue
    if (other.detect(parsedFor(other, text)) === true)
      out.push(`${other.label} accepts ${key}'s fixture first`)
  }
  const d = detectFormat(text)
  if (!d.ok || d.importer !== imp) out.push(`detection does not pick ${key}`)
  const r = importTranscript(text)
  if (!r.ok) out.push(`${key} fixture fails to import: ${r.error.message}`)
  else if (r.transcript.format !== imp.id)
    out.push(`${key} fixture imports as ${r.transcript.format}`)
  return out
}

/**
 * The fuzz harness at its small size, part of `npm test`: every property of properties.ts but
 * those marked `fuzzOnly`, with a fixed seed and few runs (a few seconds in all). `npm run fuzz`
 * (run.ts) runs them all, longer, with a new seed each time.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { importBytes } from '../../src/engine/formats/index'
import { FORMAT_IMPORTERS } from '../../src/engine/formats/registry'
import { CORPUS, SMALL, corpusFor } from './generators'
import { PROPERTIES } from './properties'

/** The seed of `npm test`'s runs: fixed, so a failure repeats. */
const SEED = 31

describe('fuzz harness (small)', () => {
  it('its corpus holds a file of every registered format (a sample, a fixture or a canonical export)', () => {
    const formats = new Set<string>()
    for (const f of CORPUS) {
      const r = importBytes(f.bytes, { fileName: f.path.slice(f.path.lastIndexOf('/') + 1) })
      if (r.ok) formats.add(r.transcript.format)
    }
    const missing = [...new Set(FORMAT_IMPORTERS.map((i) => i.id))].filter((id) => !formats.has(id))
    expect(missing).toEqual([])
  })

  it('the small size still mutates every format', () => {
    expect(corpusFor(SMALL).length).toBeGreaterThan(50)
  })

  for (const p of PROPERTIES.filter((x) => !x.fuzzOnly)) {
    it(p.name, async () => {
      await fc.assert(p.property(SMALL), { numRuns: p.unitRuns, seed: SEED })
    })
  }
})

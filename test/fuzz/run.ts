/**
 * `npm run fuzz`: every property of the harness (properties.ts), those `npm test` leaves out
 * included, at the large size and many runs. Environment:
 * - FUZZ_RUNS: runs per property (default 500);
 * - FUZZ_SEED: the seed (default: a new one, printed first so a failing run can be repeated);
 * - FUZZ_PATH: replay one counterexample (the path a failure prints; use with FUZZ_SEED and FUZZ_ONLY);
 * - FUZZ_ONLY: run only the properties whose name contains this text.
 * Prints each property's outcome; a failure with its seed, path and shrunk counterexample. Exits 1
 * when any property failed.
 */
import fc from 'fast-check'
import { LARGE } from './generators'
import { PROPERTIES } from './properties'

const runs = Number(process.env.FUZZ_RUNS ?? 500)
const seed = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : (Date.now() ^ (Math.random() * 0x100000000)) | 0
const path = process.env.FUZZ_PATH
const only = process.env.FUZZ_ONLY

if (!Number.isInteger(runs) || runs < 1) throw new Error(`FUZZ_RUNS must be a whole number ≥ 1, not ${process.env.FUZZ_RUNS}`)
if (!Number.isInteger(seed)) throw new Error(`FUZZ_SEED must be a whole number, not ${process.env.FUZZ_SEED}`)

console.log(`fuzz: seed ${seed}, ${runs} runs per property (FUZZ_SEED=${seed} FUZZ_RUNS=${runs} repeats this run)`)
let failed = 0
for (const p of PROPERTIES) {
  if (only && !p.name.includes(only)) continue
  const started = Date.now()
  const details = await fc.check(p.property(LARGE), { numRuns: runs, seed, ...(path ? { path } : {}) })
  const took = `${((Date.now() - started) / 1000).toFixed(1)} s`
  const tag = p.fuzzOnly ? ` [fuzz only: ${p.fuzzOnly}]` : ''
  if (!details.failed) {
    console.log(`ok    ${p.name} (${details.numRuns} runs, ${took})${tag}`)
    continue
  }
  failed++
  const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)
  console.log(`FAIL  ${p.name} (after ${details.numRuns} runs, ${details.numShrinks} shrinks, ${took})${tag}`)
  console.log(`      seed ${details.seed}, path "${details.counterexamplePath ?? ''}"`)
  console.log(`      ${error.slice(0, 4000)}`)
}
console.log(failed === 0 ? 'fuzz: every property held' : `fuzz: ${failed} propert${failed === 1 ? 'y' : 'ies'} failed`)
process.exitCode = failed === 0 ? 0 : 1

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { factPassRuns, passStateAt, passTimeline, type PassRun, type PassState } from './pass-runs'

/** The rule of `factPassRuns`' docstring, pass by pass: the oracle the runs must expand to. */
function statesByPass(
  rolling: readonly boolean[],
  atMessage: readonly number[],
  carriers: readonly { at: number; until: number }[],
  summaryAt: readonly number[],
): PassState[] {
  return rolling.map((isRolling, k) => {
    const present = carriers.filter((c) => !isRolling || c.at <= (atMessage[k] as number))
    if (present.length === 0) return 'not-yet'
    if (present.some((c) => k < c.until)) return 'verbatim'
    return summaryAt.includes(k) ? 'summary' : 'lost'
  })
}

const expand = (runs: readonly PassRun[], count: number) =>
  Array.from({ length: count }, (_, k) => passStateAt(runs, k))

/** Passes as a pipeline orders them: some non-rolling, one rolling block, some non-rolling. */
const pipelineTimeline = fc
  .tuple(fc.nat(4), fc.array(fc.nat(6), { maxLength: 30 }), fc.nat(4))
  .map(([head, steps, tail]) => {
    const rolling = [...Array<boolean>(head).fill(false), ...steps.map(() => true), ...Array<boolean>(tail).fill(false)]
    let at = 0
    const atMessage = [...Array<number>(head).fill(0), ...steps.map((s) => (at += s)), ...Array<number>(tail).fill(0)]
    return { rolling, atMessage }
  })

/** Any order at all (interleaved rolling passes, atMessage going back): the walking path. */
const anyTimeline = fc
  .array(fc.tuple(fc.boolean(), fc.nat(60)), { maxLength: 30 })
  .map((ps) => ({ rolling: ps.map((p) => p[0]), atMessage: ps.map((p) => p[1]) }))

const factOn = (timeline: fc.Arbitrary<{ rolling: boolean[]; atMessage: number[] }>) =>
  timeline.chain((t) =>
    fc.record({
      t: fc.constant(t),
      carriers: fc.array(fc.record({ at: fc.nat(80), until: fc.nat(t.rolling.length + 1) }), { maxLength: 5 }),
      summaryAt: fc.uniqueArray(fc.nat(Math.max(0, t.rolling.length - 1)), { maxLength: t.rolling.length }).map((a) =>
        a.filter((k) => k < t.rolling.length).sort((x, y) => x - y),
      ),
    }),
  )

describe('factPassRuns', () => {
  for (const [name, timeline] of [
    ['passes in pipeline order (the run-length path)', pipelineTimeline],
    ['passes in any order (the pass-by-pass path)', anyTimeline],
  ] as const) {
    it(`expands to the per-pass rule, covers every pass once, neighbours differ: ${name}`, () => {
      fc.assert(
        fc.property(factOn(timeline), ({ t, carriers, summaryAt }) => {
          const runs = factPassRuns(passTimeline(t.rolling, t.atMessage), carriers, summaryAt)
          const count = t.rolling.length
          expect(expand(runs, count)).toEqual(statesByPass(t.rolling, t.atMessage, carriers, summaryAt))
          if (count === 0) expect(runs).toEqual([])
          else {
            expect(runs[0]?.from).toBe(0)
            expect(runs.at(-1)?.to).toBe(count - 1)
          }
          runs.forEach((r, i) => {
            expect(r.to).toBeGreaterThanOrEqual(r.from)
            if (i > 0) {
              expect(r.from).toBe((runs[i - 1] as PassRun).to + 1)
              expect(r.state).not.toBe((runs[i - 1] as PassRun).state)
            }
          })
        }),
        { numRuns: 500, seed: 14 },
      )
    })
  }

  it('a fact through 10,000 rolling passes is a handful of runs', () => {
    const P = 10_000
    const rolling = Array<boolean>(P).fill(true)
    const atMessage = Array.from({ length: P }, (_, k) => 40 * (k + 1))
    // Said at message 1000 (reached by pass 25, position 24), folded at position 30, kept in
    // the summaries of positions 30–99, then dropped.
    const summaryAt = Array.from({ length: 70 }, (_, i) => 30 + i)
    const runs = factPassRuns(passTimeline(rolling, atMessage), [{ at: 1000, until: 30 }], summaryAt)
    expect(runs).toEqual([
      { state: 'not-yet', from: 0, to: 23 },
      { state: 'verbatim', from: 24, to: 29 },
      { state: 'summary', from: 30, to: 99 },
      { state: 'lost', from: 100, to: P - 1 },
    ])
  })

  it('passStateAt reads a position; outside every run it is not-yet', () => {
    const runs: PassRun[] = [
      { state: 'verbatim', from: 0, to: 2 },
      { state: 'lost', from: 3, to: 3 },
    ]
    expect([0, 2, 3, 4].map((k) => passStateAt(runs, k))).toEqual(['verbatim', 'verbatim', 'lost', 'not-yet'])
  })
})

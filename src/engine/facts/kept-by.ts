/**
 * Recorded vs simulated, fact by fact: which of a transcript's important facts the agent's own
 * compaction kept in its After, which the simulation kept, and which both or neither did. Read
 * from the two runs' After texts only (a fact is kept when an After message, a summary included,
 * holds it verbatim); never re-runs compaction. Source: SPEC §6 "Fact finder".
 */
import { messageFactText } from './patterns'
import type { FactRun } from './run-index'
import { isImportantFact, type FactIndex } from './table'

/** Which important facts each After kept. Facts in the order of the index (first seen first). */
export interface FactsKeptBy {
  /** Kept by the agent's recorded compaction, not by the simulation. */
  recordedOnly: string[]
  /** Kept by the simulation, not by the agent's recorded compaction. */
  simulatedOnly: string[]
  /** How many both kept, and how many neither did. */
  both: number
  neither: number
}

/** The facts of `index` some After message of `run` holds, by position in `index.facts`. */
function keptIn(index: FactIndex, run: FactRun): Set<number> {
  const kept = new Set<number>()
  for (const m of run.after.messages) for (const i of index.matcher.find(messageFactText(m))) kept.add(i)
  return kept
}

/**
 * Compares what two runs of the same transcript kept of its important facts (`isImportantFact`;
 * noise such as durations and listing dates is left out): `index` is the fact index of their
 * Before (`indexFacts`), `recorded` the agent's recorded run, `simulated` a pipeline run. Pure.
 */
export function factsKeptBy(index: FactIndex, recorded: FactRun, simulated: FactRun): FactsKeptBy {
  const r = keptIn(index, recorded)
  const s = keptIn(index, simulated)
  const out: FactsKeptBy = { recordedOnly: [], simulatedOnly: [], both: 0, neither: 0 }
  index.facts.forEach((f, i) => {
    if (!isImportantFact(f)) return
    if (r.has(i) && s.has(i)) out.both++
    else if (r.has(i)) out.recordedOnly.push(f.fact)
    else if (s.has(i)) out.simulatedOnly.push(f.fact)
    else out.neither++
  })
  return out
}

/**
 * Stage outputs reused across runs of one transcript, so a re-plan re-runs only the stages from
 * the first one whose input or settings changed (BENCH.md B4). A stage is a pure function of its
 * input messages, its params, the model window, the token counter and the summarizer
 * (stages/types.ts: it never mutates its input); the pipeline hands each stage either the
 * transcript's own message array or the output array of the stage before it. So when a stage
 * sees the very array object it saw before (every stage ahead of it reused or unchanged) with the
 * same key (`stageMemoKey`), its earlier output is its output again.
 *
 * Kept per (transcript, counter) in WeakMaps keyed by the input arrays: dropped with the
 * transcript. Each input array holds at most `STAGE_MEMO_PER_INPUT` outputs (the most recently
 * used), so dragging a slider across its range does not keep every setting it passed.
 */
import type { Message, PipelineConfig, StageConfig, TokenTotals, Transcript } from './model'
import type { StageOutput, Summarizer } from './stages/types'
import type { SummarizerRuntime } from './summarizers/create'
import type { CachedCounter } from './tokens/count'

/** Outputs kept per input array: the latest settings a person moved between. */
export const STAGE_MEMO_PER_INPUT = 8

/**
 * What the pipeline derived from one message array of its runs, kept with the array: its token
 * totals (by the memo's counter), and for a stage's output array the provenance composed up to it
 * (`provenance`, the pipeline's own shape; see pipeline.ts `Composed`).
 */
interface ArrayFacts {
  totals?: TokenTotals
  provenance?: unknown
}

/** The outputs of one (transcript, counter) pair's stages, by input array and key. */
export interface StageMemo {
  /** The output an earlier run's stage gave for this exact input array and key, if kept. */
  get(input: readonly Message[], key: string): StageOutput | undefined
  /** Keeps `output` (a stage that finished without an error; never a cancelled one). */
  set(input: readonly Message[], key: string, output: StageOutput): void
  /** The record of what was derived from `messages` (created empty on first use). */
  factsOf(messages: readonly Message[]): ArrayFacts
}

const memos = new WeakMap<Transcript, WeakMap<CachedCounter, Map<string, StageMemo>>>()

/**
 * The stage memo of `transcript` counted by `counter` under the calibration `calibrationKey`
 * (its overhead and ratio: counts, triggers and so outputs depend on them), created on first use.
 */
export function stageMemoOf(transcript: Transcript, counter: CachedCounter, calibrationKey = ''): StageMemo {
  let byCounter = memos.get(transcript)
  if (!byCounter) memos.set(transcript, (byCounter = new WeakMap()))
  let byCalibration = byCounter.get(counter)
  if (!byCalibration) byCounter.set(counter, (byCalibration = new Map()))
  let memo = byCalibration.get(calibrationKey)
  if (!memo) byCalibration.set(calibrationKey, (memo = createStageMemo()))
  return memo
}

function createStageMemo(): StageMemo {
  const byInput = new WeakMap<readonly Message[], Map<string, StageOutput>>()
  const facts = new WeakMap<readonly Message[], ArrayFacts>()
  return {
    factsOf(messages) {
      let f = facts.get(messages)
      if (!f) facts.set(messages, (f = {}))
      return f
    },
    get(input, key) {
      const kept = byInput.get(input)
      const output = kept?.get(key)
      if (kept && output) {
        // Most recently used last: the eviction below drops the oldest.
        kept.delete(key)
        kept.set(key, output)
      }
      return output
    },
    set(input, key, output) {
      let kept = byInput.get(input)
      if (!kept) byInput.set(input, (kept = new Map()))
      kept.delete(key)
      kept.set(key, output)
      while (kept.size > STAGE_MEMO_PER_INPUT) kept.delete(kept.keys().next().value as string)
    },
  }
}

const summarizerIds = new WeakMap<object, number>()
let nextSummarizerId = 1

/** A number per object for as long as it lives: a summarizer passed in is the same only if it is the same function. */
function identity(o: object): number {
  let id = summarizerIds.get(o)
  if (id === undefined) summarizerIds.set(o, (id = nextSummarizerId++))
  return id
}

/**
 * The key a stage's output is kept under: the stage's config (id, params), the model window of the
 * run, and which summarizer writes its summaries — the config's summarizer and its options when the
 * pipeline builds it, or the identity of a summarizer (or HTTP runtime) the caller passed, so a
 * run with another key, cache or fetch never reuses a summary it did not ask for. The API key is
 * never part of it (only the runtime object's identity is).
 */
export function stageMemoKey(
  stage: StageConfig,
  config: PipelineConfig,
  deps: { summarizer?: Summarizer; summarizerRuntime?: SummarizerRuntime },
): string {
  const summarizer = deps.summarizer
    ? `fn#${identity(deps.summarizer)}`
    : deps.summarizerRuntime
      ? `runtime#${identity(deps.summarizerRuntime)}:${config.summarizer}:${JSON.stringify(config.summarizerOptions ?? null)}`
      : `${config.summarizer}:${JSON.stringify(config.summarizerOptions ?? null)}`
  return JSON.stringify([stage.id, stage.params, config.window ?? null, summarizer])
}

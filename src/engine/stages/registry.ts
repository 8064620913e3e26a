/**
 * The run function of every stage, registered beside its definition (definitions.ts): the
 * pipeline looks a stage's runner up here instead of switching on its id. Adding a stage is its
 * definition, its module and one line here.
 */
import type { Message, StageConfig, StageId } from '../model'
import { dedupe } from './dedupe'
import { insertThenCompress } from './insert-then-compress'
import { pinFacts } from './pin-facts'
import { pruneToolResults } from './prune-tool-results'
import { slim } from './slim'
import { summarize } from './summarize'
import type { StageContext, StageOutput } from './types'

/** What a stage may read of the run besides its input messages and params. */
export interface StageRunEnv {
  ctx: StageContext
  /** The provider family of the transcript (some stages pick a role by it). */
  provider: 'anthropic' | 'openai'
  /** The messages the pipeline started from (before any stage). */
  original: readonly Message[]
  /** Back-reference id → first-occurrence id for the current messages (computed on demand). */
  backReferences: () => Record<string, string>
}

/** Params of stage `K` as its config holds them. */
type ParamsOf<K extends StageId> = Extract<StageConfig, { id: K }>['params']

/** Runs one stage over `messages`: never mutates them (the stage contract, stages/types.ts). */
type StageRunner<K extends StageId> = (
  messages: readonly Message[],
  params: ParamsOf<K>,
  env: StageRunEnv,
) => StageOutput | Promise<StageOutput>

/** The run function of each stage. */
export const STAGE_RUNNERS: { readonly [K in StageId]: StageRunner<K> } = {
  dedupe: (messages, params, { ctx }) => dedupe(messages, params, ctx),
  slim: (messages, params, { ctx }) => slim(messages, params, ctx),
  'prune-tool-results': (messages, params, { ctx, backReferences }) =>
    pruneToolResults(messages, { ...params, backReferences: backReferences() }, ctx),
  summarize: (messages, params, { ctx }) => summarize(messages, params, ctx),
  // Anthropic-shaped transcripts need a user turn first: the summary takes the user role there.
  'insert-then-compress': (messages, params, { ctx, provider }) =>
    insertThenCompress(
      messages,
      provider === 'anthropic' && params.summary_role === undefined ? { ...params, summary_role: 'user' } : params,
      ctx,
    ),
  'pin-facts': (messages, params, { ctx, original }) => pinFacts(messages, { ...params, original }, ctx),
}

/** Runs `stage` by its registered runner. */
export function runStage(stage: StageConfig, messages: readonly Message[], env: StageRunEnv): StageOutput | Promise<StageOutput> {
  const runner = STAGE_RUNNERS[stage.id] as StageRunner<StageId>
  return runner(messages, stage.params as never, env)
}

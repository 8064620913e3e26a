/**
 * What compaction costs: the summarizer calls of a run (per pass and in total — input, cached
 * input and output tokens), `insert-then-compress` with its cached prefix vs the same call
 * without the cache and vs a separate summarization call, and the agent's following turns before
 * vs after compaction (each turn re-sends the whole context), at an editable price table.
 * Pure arithmetic over token counts; `runTokens` derives the counts from a `RunResult`.
 * Source: SPEC §3.4 (cost view), seed 003 (cache reuse).
 */
import type { Message, Pass, ProvenanceStage, RunResult, ToolSchema } from '../model'
import { buildCompressionRequest } from '../stages/insert-then-compress'
import { buildPrompt, DEFAULT_RULES, messageLine } from '../stages/summarize'
import {
  countMessageTokens,
  countToolSchemaTokens,
  REPLY_PRIMING_TOKENS,
  type TextCounter,
} from '../tokens/count'

/** Prices of one model in US dollars per million tokens. Edit freely: the table is data. */
export interface ModelPrice {
  /** Model id as the provider spells it; longer ids starting with it match too (`findPrice`). */
  model: string
  /** Uncached input. */
  input: number
  /** Input read from the provider's prompt cache. */
  cachedInput: number
  output: number
  /** Input written to the cache (Anthropic: 1.25× input, 5-minute writes); absent → `input`. */
  cacheWrite?: number
  /** When these prices were read (YYYY-MM-DD). */
  asOf: string
  /** Where they were read. */
  source: string
}

/** The date of `DEFAULT_PRICES`. */
export const DEFAULT_PRICES_AS_OF = '2025-11-30'

/** Shown next to the default table. */
export const DEFAULT_PRICES_NOTE =
  `Default prices as of ${DEFAULT_PRICES_AS_OF} (USD per million tokens); prices change — ` +
  "check the provider's pricing page and edit the table."

const OPENAI_PRICING = 'https://openai.com/api/pricing/'
const ANTHROPIC_PRICING = 'https://docs.anthropic.com/en/docs/about-claude/pricing'

/**
 * A few current models, clearly dated (`DEFAULT_PRICES_AS_OF`): the providers' published
 * standard (non-batch, non-priority) prices on that date, and a zero-cost row for a local server.
 *
 * Where they come from: the pricing pages in `source` (openai.com/api/pricing — GPT-5, GPT-5 mini,
 * GPT-4.1, GPT-4o mini: input, "cached input", output; docs.anthropic.com pricing — Claude Opus
 * 4.5, Sonnet 4.5, Haiku 4.5: base input, "cache hits & refreshes" as cached input, 5-minute
 * cache writes at 1.25× input, output), as published around that date. They were written down
 * from those pages, not fetched by this app, and were not re-checked since: they are dated
 * defaults the person should verify and edit (the cost view says so). Known simplifications:
 * Sonnet's higher price above 200K input tokens and Anthropic's 1-hour cache writes (2× input)
 * are not modelled.
 */
export const DEFAULT_PRICES: readonly ModelPrice[] = [
  {
    model: 'gpt-5',
    input: 1.25,
    cachedInput: 0.125,
    output: 10,
    asOf: DEFAULT_PRICES_AS_OF,
    source: OPENAI_PRICING,
  },
  {
    model: 'gpt-5-mini',
    input: 0.25,
    cachedInput: 0.025,
    output: 2,
    asOf: DEFAULT_PRICES_AS_OF,
    source: OPENAI_PRICING,
  },
  {
    model: 'gpt-4.1',
    input: 2,
    cachedInput: 0.5,
    output: 8,
    asOf: DEFAULT_PRICES_AS_OF,
    source: OPENAI_PRICING,
  },
  {
    model: 'gpt-4o-mini',
    input: 0.15,
    cachedInput: 0.075,
    output: 0.6,
    asOf: DEFAULT_PRICES_AS_OF,
    source: OPENAI_PRICING,
  },
  {
    model: 'claude-opus-4-5',
    input: 5,
    cachedInput: 0.5,
    output: 25,
    cacheWrite: 6.25,
    asOf: DEFAULT_PRICES_AS_OF,
    source: ANTHROPIC_PRICING,
  },
  {
    model: 'claude-sonnet-4-5',
    input: 3,
    cachedInput: 0.3,
    output: 15,
    cacheWrite: 3.75,
    asOf: DEFAULT_PRICES_AS_OF,
    source: ANTHROPIC_PRICING,
  },
  {
    model: 'claude-haiku-4-5',
    input: 1,
    cachedInput: 0.1,
    output: 5,
    cacheWrite: 1.25,
    asOf: DEFAULT_PRICES_AS_OF,
    source: ANTHROPIC_PRICING,
  },
  {
    model: 'local',
    input: 0,
    cachedInput: 0,
    output: 0,
    asOf: DEFAULT_PRICES_AS_OF,
    source: 'a model on your own machine (Ollama, LM Studio, vLLM): no per-token price',
  },
]

/**
 * The row for `model`: an exact match, else the longest `ModelPrice.model` that `model` starts
 * with followed by `-` (so `claude-haiku-4-5-20251001` finds `claude-haiku-4-5`); undefined
 * when none.
 */
export function findPrice(table: readonly ModelPrice[], model: string): ModelPrice | undefined {
  const exact = table.find((p) => p.model === model)
  if (exact) return exact
  let best: ModelPrice | undefined
  for (const p of table) {
    if (model.startsWith(`${p.model}-`) && (!best || p.model.length > best.model.length)) best = p
  }
  return best
}

/**
 * Tokens of one or more requests. `input` is every input token not read from the cache;
 * `cacheWrite` is the part of `input` written to the cache (billed at `cacheWrite` price).
 */
export interface TokenUsage {
  input: number
  cachedInput: number
  output: number
  cacheWrite: number
}

/** Dollars of a `TokenUsage` at a price (cache writes inside `input`). */
export interface Cost {
  input: number
  cachedInput: number
  output: number
  total: number
}

/** A usage of nothing. */
const NO_USAGE: TokenUsage = { input: 0, cachedInput: 0, output: 0, cacheWrite: 0 }

/** Sum of usages. */
function addUsage(usages: readonly TokenUsage[]): TokenUsage {
  const sum = { ...NO_USAGE }
  for (const u of usages) {
    sum.input += u.input
    sum.cachedInput += u.cachedInput
    sum.output += u.output
    sum.cacheWrite += u.cacheWrite
  }
  return sum
}

/**
 * Dollars of `usage` at `price`: input = (input − cacheWrite)·input$ + cacheWrite·(cacheWrite$
 * or input$), cachedInput·cached$, output·output$, each / 1,000,000. Unrounded.
 */
export function costOf(usage: TokenUsage, price: ModelPrice): Cost {
  const m = 1_000_000
  const written = Math.min(usage.cacheWrite, usage.input)
  const input =
    ((usage.input - written) * price.input + written * (price.cacheWrite ?? price.input)) / m
  const cachedInput = (usage.cachedInput * price.cachedInput) / m
  const output = (usage.output * price.output) / m
  return { input, cachedInput, output, total: input + cachedInput + output }
}

/** A separate summarization call (SPEC §3.2): a new prompt, all of it uncached. */
export function separateCallUsage(promptTokens: number, outputTokens: number): TokenUsage {
  return { input: promptTokens, cachedInput: 0, output: outputTokens, cacheWrite: 0 }
}

/**
 * An `insert-then-compress` call: the prefix (system + tools + history) the agent just sent is
 * read from the cache, only the appended instruction is new (SPEC §3.4, seed 003). With
 * `cached: false` the same request pays the prefix as uncached input (a provider without prompt
 * caching, or a cold cache).
 */
export function insertThenCompressUsage(
  prefixTokens: number,
  instructionTokens: number,
  outputTokens: number,
  cached = true,
): TokenUsage {
  return cached
    ? { input: instructionTokens, cachedInput: prefixTokens, output: outputTokens, cacheWrite: 0 }
    : {
        input: prefixTokens + instructionTokens,
        cachedInput: 0,
        output: outputTokens,
        cacheWrite: 0,
      }
}

/** Assumptions about the agent's turns after the compaction point. */
export interface FollowingTurns {
  /** How many turns follow. */
  turns: number
  /** Tokens each turn adds before it is sent (new user/tool messages, the last answer). */
  newTokensPerTurn: number
  /** Tokens the model answers per turn. */
  outputTokensPerTurn: number
  /** The provider caches the prompt prefix between turns. */
  caching: boolean
}

/** Default assumptions (editable in the cost view). */
export const DEFAULT_FOLLOWING_TURNS: FollowingTurns = {
  turns: 10,
  newTokensPerTurn: 500,
  outputTokensPerTurn: 300,
  caching: true,
}

/**
 * The agent's next `turns` requests over a context of `contextTokens` (C): turn k (1-based)
 * sends C + k·g tokens (g = `newTokensPerTurn`). With caching, what turn k−1 sent is read from
 * the cache and the rest written to it; before turn 1 the context itself is cached only when
 * `warm` — true without compaction (the agent just sent it), false right after compaction (the
 * rebuilt context was never sent: "the cache will rebuild from here", seed 003). So:
 * sent = N·C + g·N(N+1)/2; cached = N·C + g·N(N−1)/2 when warm, (N−1)·C + g·N(N−1)/2 when
 * cold;
 * input (uncached) = sent − cached, all of it written to the cache; output = N·o.
 * Without caching everything is uncached and nothing is written.
 */
export function followingTurnsUsage(
  contextTokens: number,
  warm: boolean,
  a: FollowingTurns,
): TokenUsage {
  const n = Math.max(0, Math.trunc(a.turns))
  const c = contextTokens
  const g = a.newTokensPerTurn
  const sent = n * c + (g * n * (n + 1)) / 2
  const output = n * a.outputTokensPerTurn
  if (!a.caching || n === 0) return { input: sent, cachedInput: 0, output, cacheWrite: 0 }
  const cached = (warm ? n : n - 1) * c + (g * n * (n - 1)) / 2
  return { input: sent - cached, cachedInput: cached, output, cacheWrite: sent - cached }
}

/** The token counts of one summarizer call, as `estimateRunCost` needs them. */
interface PassTokens {
  stage: ProvenanceStage
  pass: number
  /**
   * `summarize`: input tokens of the prompt request. `insert-then-compress`: tokens of the
   * appended instruction (plus reply priming).
   */
  promptTokens: number
  /** `insert-then-compress`: system + tools + history sent before the instruction; else 0. */
  prefixTokens: number
  outputTokens: number
  /**
   * `insert-then-compress`: input tokens of a separate seed 001 summarization call over the same
   * messages (rules + one `[i] role: text` line per message), for the comparison.
   */
  separatePromptTokens?: number
}

/** Token counts of a run: its summarizer calls and its context before and after. */
export interface RunTokens {
  passes: PassTokens[]
  /** Tokens of the context without compaction (`RunResult.before.totals.tokens`). */
  contextBefore: number
  /** Tokens of the compacted context (`RunResult.after.totals.tokens`). */
  contextAfter: number
}

/** A usage and its dollars. */
export interface Priced {
  usage: TokenUsage
  cost: Cost
}

/** The cost of one summarizer call, with the alternatives for `insert-then-compress`. */
interface PassCost extends Priced {
  stage: ProvenanceStage
  pass: number
  /** `insert-then-compress` only: the same request with a cold cache, and a separate call. */
  withoutCache?: Priced
  separateCall?: Priced
}

/** The cost view of a run. */
export interface RunCost {
  price: ModelPrice
  assumptions: FollowingTurns
  passes: PassCost[]
  /** All summarizer calls. */
  summarization: Priced
  /** The following turns over the uncompacted context (warm cache) and the compacted one (cold). */
  followingTurns: { withoutCompaction: Priced; withCompaction: Priced }
  /** Dollars: following turns alone vs summarizer calls + following turns. */
  total: { withoutCompaction: number; withCompaction: number }
}

function priced(usage: TokenUsage, price: ModelPrice): Priced {
  return { usage, cost: costOf(usage, price) }
}

/**
 * Prices a run: each pass (`summarize` as a separate call; `insert-then-compress` with its cached
 * prefix, plus its `withoutCache` and `separateCall` alternatives), their sum, the following
 * turns without compaction (warm, over `contextBefore`) and with it (cold, over `contextAfter`),
 * and the two totals. The compacted context counts as cold (never sent yet) whenever it differs
 * from the uncompacted one (other token total, or any pass); an unchanged context stays warm, so
 * both sides are equal. Pure.
 */
export function estimateRunCost(
  tokens: RunTokens,
  price: ModelPrice,
  assumptions: FollowingTurns = DEFAULT_FOLLOWING_TURNS,
): RunCost {
  const passes: PassCost[] = tokens.passes.map((p) => {
    if (p.stage === 'insert-then-compress') {
      const row: PassCost = {
        stage: p.stage,
        pass: p.pass,
        ...priced(insertThenCompressUsage(p.prefixTokens, p.promptTokens, p.outputTokens), price),
        withoutCache: priced(
          insertThenCompressUsage(p.prefixTokens, p.promptTokens, p.outputTokens, false),
          price,
        ),
      }
      if (p.separatePromptTokens !== undefined)
        row.separateCall = priced(separateCallUsage(p.separatePromptTokens, p.outputTokens), price)
      return row
    }
    return {
      stage: p.stage,
      pass: p.pass,
      ...priced(separateCallUsage(p.promptTokens, p.outputTokens), price),
    }
  })
  const summarization = priced(addUsage(passes.map((p) => p.usage)), price)
  const without = priced(followingTurnsUsage(tokens.contextBefore, true, assumptions), price)
  const compacted = tokens.contextAfter !== tokens.contextBefore || passes.length > 0
  const withC = priced(followingTurnsUsage(tokens.contextAfter, !compacted, assumptions), price)
  return {
    price,
    assumptions,
    passes,
    summarization,
    followingTurns: { withoutCompaction: without, withCompaction: withC },
    total: {
      withoutCompaction: without.cost.total,
      withCompaction: summarization.cost.total + withC.cost.total,
    },
  }
}

function userMessage(text: string): Message {
  return { id: 'request', index: 0, role: 'user', content: text, source: { format: 'canonical' } }
}

/**
 * The token counts of a run's summarizer calls, counted with `countText` (the run's encoding):
 * - `summarize` pass: its prompt as one user message + `REPLY_PRIMING_TOKENS`; output = its
 *   summary;
 * - `insert-then-compress` pass: prefix = `Pass.tokensBefore` (the conversation's message tokens)
 *   + the tool schemas; prompt = the instruction message + reply priming; separate call = the
 *   seed 001 prompt (default rules, one line per original message the summary covers) as one
 *   user message + reply priming; output = its summary.
 * Context before/after = the run's totals. Pure.
 */
export function runTokens(
  run: Pick<RunResult, 'passes' | 'before' | 'after' | 'origins'>,
  countText: TextCounter,
  tools?: readonly ToolSchema[],
): RunTokens {
  const byId = new Map(run.before.messages.map((m) => [m.id, m]))
  const passes = run.passes.map((p: Pass): PassTokens => {
    const output = countText(p.summary)
    if (p.stage !== 'insert-then-compress') {
      return {
        stage: p.stage,
        pass: p.pass,
        promptTokens: countMessageTokens(userMessage(p.prompt), countText) + REPLY_PRIMING_TOKENS,
        prefixTokens: 0,
        outputTokens: output,
      }
    }
    const origin = run.origins[p.summaryId]
    const covered =
      origin?.kind === 'summary'
        ? origin.coveredIds.map((id) => byId.get(id)).filter((m): m is Message => m !== undefined)
        : run.before.messages.slice(p.from, p.upto)
    const separate = buildPrompt(covered.map(messageLine), undefined, DEFAULT_RULES)
    const instruction = buildCompressionRequest([]).instruction
    return {
      stage: p.stage,
      pass: p.pass,
      promptTokens: countMessageTokens(instruction, countText) + REPLY_PRIMING_TOKENS,
      prefixTokens: p.tokensBefore + countToolSchemaTokens(tools, countText),
      outputTokens: output,
      separatePromptTokens:
        countMessageTokens(userMessage(separate), countText) + REPLY_PRIMING_TOKENS,
    }
  })
  return { passes, contextBefore: run.before.totals.tokens, contextAfter: run.after.totals.tokens }
}

/**
 * The real context on the timeline: per recorded API request, what the agent's own usage says it
 * sent (`recorded`), our calibrated count of the same context (`estimated`), and what that
 * context was made of (overhead, system, user, assistant, thinking, tool results by tool,
 * summaries) — plus the agent's recorded compactions with their trigger and figures. Pure; the
 * page's timeline and the CLI read it. Source: formats-more.md §10.6 (Claude Code usage), §11
 * (Codex token_count); usage/calibration.ts for the counting.
 */
import { contextWalk } from '../analysis/recorded'
import type { Message, Transcript } from '../model'
import { countMessageTokens, type CachedCounter } from '../tokens/count'
import { calibrateTokens, transcriptCounts } from './calibration'
import type { Calibration } from './calibration-terms'

/** The parts a request's context is split into; `tool:<name>` parts are the tool results of one tool. */
export type CompositionPart = 'overhead' | 'system' | 'user' | 'assistant' | 'thinking' | 'summaries' | `tool:${string}`

/** One recorded request on the timeline. Tokens. */
export interface UsagePoint {
  /** Index of the first message the response produced (its context is the messages before it). */
  atIndex: number
  atMessageId: string
  /** The agent's own figure, read from the file. */
  recorded: number
  /** Our calibrated count of the same context; never copied from `recorded`. */
  estimated: number
  /** The response's output tokens, when recorded. */
  output?: number
  /**
   * What the estimated context was made of, by part (tokens, summing to `estimated` within
   * rounding); parts with 0 are left out. `overhead` holds tool schemas, reply priming, the
   * calibration's overhead and what it re-injects after a compaction.
   */
  composition: Partial<Record<CompositionPart, number>>
}

/** A recorded compaction on the timeline. */
export interface UsageCompaction {
  /** Index of the first message after its boundary. */
  atIndex: number
  trigger?: string
  /** The agent's own figures (its tokenizer). */
  tokensBefore?: number
  tokensAfter?: number
  /** Our calibrated count of the context right before it. */
  estimatedTokensBefore: number
}

/** The usage timeline of a transcript (`usageTimeline`). */
export interface UsageTimeline {
  points: UsagePoint[]
  compactions: UsageCompaction[]
  /** Tool results the agent cleared in place (Claude Code microcompact), where and how many. */
  clearings: { atIndex: number; results: number; tokensSaved?: number }[]
  /** The composition parts present anywhere, in stacking order (overhead first, tools by size). */
  parts: CompositionPart[]
}

/** The part a message belongs to (assistant messages split their thinking out, `thinkingShare`). */
function partOf(m: Message, summaries: ReadonlySet<Message>): CompositionPart {
  if (m.flags?.compactSummary || summaries.has(m)) return 'summaries'
  if (m.role === 'tool') return `tool:${m.toolName || 'unknown'}`
  if (m.role === 'assistant') return 'assistant'
  return m.role
}

/**
 * The usage timeline of `transcript` under `calibration`: one point per recorded request with a
 * positive context (file order), each recorded compaction and clearing, counted as the run counts
 * (`transcriptCounts`, the context walked through the recorded compactions as the agent had it).
 * Empty `points` when the file records no usage.
 */
export function usageTimeline(transcript: Transcript, counter: CachedCounter, calibration: Calibration): UsageTimeline {
  const counts = transcriptCounts(transcript, counter, calibration)
  const reinjected = calibration.reinjected ?? 0
  const summaries = new Set<Message>()
  for (const c of transcript.recordedCompactions) {
    const m = c.summaryMessageId !== undefined ? transcript.messages.find((x) => x.id === c.summaryMessageId) : undefined
    if (m) summaries.add(m)
  }
  // The thinking share of an assistant message: its thinking parts' tokens, calibrated, and what
  // the hidden thinking adds (the message's count less its calibrated readable rest).
  const thinkingCache = new WeakMap<Message, number>()
  const thinkingOf = (m: Message): number => {
    let n = thinkingCache.get(m)
    if (n !== undefined) return n
    n = 0
    if (m.role === 'assistant' && Array.isArray(m.content) && m.content.some((p) => p.type === 'thinking')) {
      const rest = { ...m, content: m.content.filter((p) => p.type !== 'thinking') }
      n = Math.max(0, counts.message(m) - calibrateTokens(countMessageTokens(rest, counter.count), calibration))
    }
    thinkingCache.set(m, n)
    return n
  }
  const share = (m: Message, part: CompositionPart): number => {
    const own = partOf(m, summaries)
    if (part === 'thinking') return own === 'assistant' ? thinkingOf(m) : 0
    if (own !== part) return 0
    return own === 'assistant' ? counts.message(m) - thinkingOf(m) : counts.message(m)
  }
  const total = contextWalk(transcript, counts.message, counts.fixed, reinjected)
  const requests = (transcript.usage ?? []).filter((u) => u.context > 0 && u.atIndex >= 0 && u.atIndex <= transcript.messages.length)

  const present = new Map<CompositionPart, number>()
  for (const m of transcript.messages) {
    const p = partOf(m, summaries)
    present.set(p, (present.get(p) ?? 0) + counts.message(m))
    if (p === 'assistant' && thinkingOf(m) > 0) present.set('thinking', (present.get('thinking') ?? 0) + thinkingOf(m))
  }
  const tools = [...present.keys()].filter((p) => p.startsWith('tool:')).sort((a, b) => (present.get(b) ?? 0) - (present.get(a) ?? 0))
  const fixedParts: CompositionPart[] = ['system', 'user', 'assistant', 'thinking', 'summaries']
  const parts: CompositionPart[] = ['overhead', ...fixedParts.filter((p) => present.has(p)), ...tools]

  const points: UsagePoint[] = requests.map((u) => {
    const p: UsagePoint = {
      atIndex: u.atIndex,
      atMessageId: u.atMessageId,
      recorded: u.context,
      estimated: Math.round(total.at[u.atIndex] as number),
      composition: {},
    }
    if (u.output !== undefined) p.output = u.output
    return p
  })
  if (points.length > 0) {
    for (const part of parts) {
      const walk =
        part === 'overhead'
          ? contextWalk(transcript, () => 0, counts.fixed, reinjected)
          : contextWalk(transcript, (m) => share(m, part), 0)
      points.forEach((p) => {
        const n = Math.round(walk.at[p.atIndex] as number)
        if (n !== 0) p.composition[part] = n
      })
    }
  }
  return {
    points,
    compactions: transcript.recordedCompactions.map((c, k) => {
      const out: UsageCompaction = { atIndex: c.atIndex, estimatedTokensBefore: Math.round(total.compactions[k]?.tokensBefore ?? 0) }
      if (c.trigger !== undefined) out.trigger = c.trigger
      if (c.tokensBefore !== undefined) out.tokensBefore = c.tokensBefore
      if (c.tokensAfter !== undefined) out.tokensAfter = c.tokensAfter
      return out
    }),
    clearings: (transcript.clearedToolResults ?? []).map((c) => {
      const out: UsageTimeline['clearings'][number] = { atIndex: c.atIndex, results: c.toolCallIds.length }
      if (c.tokensSaved !== undefined) out.tokensSaved = c.tokensSaved
      return out
    }),
    parts,
  }
}

import type { StageId } from '../../engine/model'

/** How one numeric stage param is edited. `max` may grow with the transcript. */
export interface ParamSpec {
  key: string
  label: string
  unit: 'messages' | 'tokens' | 'steps'
  min: number
  step: number
  /** Upper slider bound given the transcript's message count and tokens. */
  max: (scale: { messages: number; tokens: number }) => number
  help: string
}

const roundUp = (n: number, to: number) => Math.ceil(n / to) * to

const messagesMax = ({ messages }: { messages: number }) => Math.max(50, roundUp(messages + 10, 10))
const tokensMax = ({ tokens }: { tokens: number }) => Math.max(2000, roundUp(tokens * 1.2, 1000))

/** Every user-editable param per stage (SPEC §3). */
export const STAGE_PARAMS: Record<StageId, ParamSpec[]> = {
  dedupe: [],
  'prune-tool-results': [
    { key: 'target', label: 'target', unit: 'tokens', min: 0, step: 100, max: tokensMax, help: 'Stop pruning once the running total is ≤ target.' },
    { key: 'keep_steps', label: 'keep_steps', unit: 'steps', min: 0, step: 1, max: () => 10, help: 'Newest steps whose results are guarded (< 1 is an error).' },
    { key: 'min_tokens', label: 'min_tokens', unit: 'tokens', min: 0, step: 10, max: () => 2000, help: 'Results under this many tokens are never replaced.' },
  ],
  summarize: [
    { key: 'keep_last', label: 'keep_last', unit: 'messages', min: 1, step: 1, max: messagesMax, help: 'Newest messages kept verbatim.' },
    { key: 'compact_after', label: 'compact_after', unit: 'messages', min: 1, step: 1, max: messagesMax, help: 'Compact once more than this many messages are unsummarized.' },
  ],
  'insert-then-compress': [
    { key: 'threshold_tokens', label: 'threshold_tokens', unit: 'tokens', min: 0, step: 100, max: tokensMax, help: 'Fire only when total tokens exceed this.' },
    { key: 'keep_recent', label: 'keep_recent', unit: 'messages', min: 1, step: 1, max: messagesMax, help: 'Messages kept verbatim at the end.' },
  ],
}

/** Title and one-line description of each stage. */
export const STAGE_INFO: Record<StageId, { title: string; description: string }> = {
  dedupe: {
    title: 'dedupe',
    description: 'Byte-identical tool outputs (≥ 200 code points) become a one-line back-reference.',
  },
  'prune-tool-results': {
    title: 'prune-tool-results',
    description: 'Oldest tool results become placeholders until the total is under target.',
  },
  summarize: {
    title: 'summarize',
    description: 'Rolling compaction: older messages fold into one summary, pass by pass.',
  },
  'insert-then-compress': {
    title: 'insert-then-compress',
    description: 'Appends a compression instruction after the whole conversation; keeps the recent tail.',
  },
}

/**
 * The request's opening turn. Anthropic rejects a request whose first message (after the
 * system prompt, which is not a message there) is not a user message ("messages: first message
 * must use the user role"; formats.md §4.3; SPEC §5 `first-not-user`). A summary role chosen with
 * `summary_role` can break that: seed 003's insert-then-compress answer is an `assistant` message
 * placed right after the system prompt, and summarize's `system` summary leaves the kept tail to
 * open the request, which may begin with the assistant. For such a provider the pipeline applies
 * `withOpeningUserTurn` to every stage's output: the summary still replaces the same messages, in
 * the same place, with the same text, but as the user turn the request must open with; a warning
 * says so. A context that opened with another role before the stage (the source's own) is not a
 * summary's doing and stays. Pure.
 */
import type { StageOutput } from './types'

/**
 * `output` with the summary it wrote in the user role when, without that, its context's first
 * non-system message would not be a user message and that summary sits at or before it (a
 * `summary` origin of this output). `output` itself otherwise, or when the stage changed nothing.
 * Only the role changes (tokens, id, provenance and passes stay).
 */
export function withOpeningUserTurn(output: StageOutput): StageOutput {
  if (!output.changed) return output
  const first = output.messages.findIndex((m) => m.role !== 'system')
  if (first === -1 || output.messages[first]!.role === 'user') return output
  let at = -1
  for (let i = 0; i <= first; i++) if (output.origins[output.messages[i]!.id]?.kind === 'summary') at = i
  if (at === -1) return output
  const summary = output.messages[at]!
  const messages = output.messages.slice()
  messages[at] = { ...summary, role: 'user' }
  const warning = `the summary ${summary.id} takes the user role instead of ${summary.role} (summary_role): this provider requires the first non-system message to be a user turn`
  return { ...output, messages, warnings: [...output.warnings, warning] }
}

import type { FormatId, Part, SourceRef, ToolCall, Transcript } from '../model'
import { importFailure } from './failure'
import type { FormatImporter } from './types'
import {
  finalizeTranscript,
  isObject,
  normalizeParts,
  str,
  type DraftMessage,
  type JsonObject,
} from './util'
import { argumentsText, vercelMedia, vercelReasoning } from './vercel-model'
import { quoteForMessage } from '../util/text'

const format: FormatId = 'vercel-ui'

/** Tool part states that carry a result (formats.md §4.7). */
const RESULT_STATES = new Set(['output-available', 'output-error', 'output-denied'])

/** The tool name of a `tool-<name>` / `dynamic-tool` part (names may contain `-`). */
function toolNameOf(p: JsonObject): string | undefined {
  if (p.type === 'dynamic-tool') return str(p.toolName)
  const t = str(p.type)
  return t?.startsWith('tool-') ? t.slice('tool-'.length) : undefined
}

/** One model step of an assistant UIMessage. */
interface Step {
  parts: Part[]
  tools: JsonObject[]
}

/**
 * A tool part's result as tool message content: `output-available` → the output (a string as is,
 * anything else compact JSON); `output-error` → `errorText`, `isError`; `output-denied` → the
 * approval's reason, `isError`.
 */
function partResult(p: JsonObject): { content: string; isError: boolean } {
  if (p.state === 'output-error')
    return { content: str(p.errorText) ?? 'tool error', isError: true }
  if (p.state === 'output-denied') {
    const approval = isObject(p.approval) ? p.approval : {}
    return { content: str(approval.reason) ?? 'tool execution denied', isError: true }
  }
  const output = p.output
  const content = typeof output === 'string' ? output : JSON.stringify(output ?? null)
  return { content, isError: false }
}

/**
 * Imports Vercel AI SDK v5 `UIMessage[]` (or `{messages}`). An assistant UIMessage spans several
 * model steps: it is split at `step-start` parts into one assistant message per step (ids
 * `<id>`, `<id>-step2`, …), each followed by the tool messages of that step's `tool-<name>` /
 * `dynamic-tool` parts (result in the same part: `output-available` → output, `output-error` →
 * `errorText` with isError), so every call is answered before the next step. Calls without a
 * result (`input-streaming`, `input-available`, approval states) stay pending. `reasoning` →
 * thinking; `file` → image (data URLs sized, never text) or opaque; `source-*` / `data-*` parts
 * are UI-only and skipped with a count. Never modifies the input. Source: formats.md §4.7.
 */
function importVercelUiMessages(root: unknown, keepRaw = true): Transcript {
  const list = Array.isArray(root) ? root : isObject(root) ? root.messages : undefined
  if (!Array.isArray(list)) importFailure('expected a UIMessage array', { field: 'messages' })
  const drafts: DraftMessage[] = []
  const warnings: string[] = []
  let uiOnly = 0
  const src = (i: number, raw: unknown): SourceRef => {
    const s: SourceRef = { format, line: i + 1 }
    if (keepRaw) s.raw = raw
    return s
  }
  list.forEach((m, i) => {
    const field = `messages[${i}]`
    if (!isObject(m) || !Array.isArray(m.parts)) {
      warnings.push(`${field}: not a UIMessage with parts, skipped`)
      return
    }
    const role = m.role
    if (role !== 'system' && role !== 'user' && role !== 'assistant') {
      warnings.push(`${field}.role: ${quoteForMessage(role)} is not a UIMessage role, skipped`)
      return
    }
    const id = str(m.id) ?? ''
    const steps: Step[] = [{ parts: [], tools: [] }]
    for (const p of m.parts) {
      const step = steps[steps.length - 1] as Step
      if (!isObject(p)) continue
      const type = str(p.type) ?? ''
      if (type === 'step-start') {
        if (step.parts.length > 0 || step.tools.length > 0) steps.push({ parts: [], tools: [] })
      } else if (type === 'text') step.parts.push({ type: 'text', text: str(p.text) ?? '' })
      else if (type === 'reasoning') step.parts.push(vercelReasoning(p))
      else if (type === 'file') step.parts.push(vercelMedia(p.url, str(p.mediaType), p))
      else if (toolNameOf(p) !== undefined) step.tools.push(p)
      else if (type.startsWith('source-') || type.startsWith('data-')) uiOnly++
      else step.parts.push({ type: 'opaque', kind: type || 'unknown', raw: p })
    }
    if (role !== 'assistant') {
      const parts = steps.flatMap((s) => s.parts)
      drafts.push({ id, role, content: normalizeParts(parts, ''), source: src(i, m) })
      return
    }
    steps.forEach((step, k) => {
      const toolCalls: ToolCall[] = step.tools.map((p) => ({
        id: str(p.toolCallId) ?? '',
        name: toolNameOf(p) ?? '',
        arguments: argumentsText(p.input),
      }))
      const d: DraftMessage = {
        id: id === '' ? '' : k === 0 ? id : `${id}-step${k + 1}`,
        role: 'assistant',
        content: normalizeParts(step.parts, null),
        source: src(i, m),
      }
      if (toolCalls.length > 0) d.toolCalls = toolCalls
      if (d.content === null && toolCalls.length === 0 && steps.length > 1) return
      drafts.push(d)
      step.tools.forEach((p, c) => {
        if (!RESULT_STATES.has(str(p.state) ?? '')) return
        const call = toolCalls[c] as ToolCall
        const { content, isError } = partResult(p)
        const t: DraftMessage = {
          id: '',
          role: 'tool',
          content,
          toolCallId: call.id,
          toolName: call.name,
          source: src(i, p),
        }
        if (isError) t.isError = true
        drafts.push(t)
      })
    })
  })
  if (uiOnly > 0)
    warnings.push(`${uiOnly} source-*/data-* part(s) skipped: UI only, not sent to the model`)
  if (drafts.length === 0) importFailure('no messages found in messages', { field: 'messages' })
  return finalizeTranscript(format, drafts, [], warnings)
}

/** The Vercel AI SDK UIMessage importer (formats.md §2 item 9). */
export const vercelUiImporter: FormatImporter<'vercel-ui'> = {
  id: 'vercel-ui',
  label: 'Vercel AI SDK UIMessage[]',
  container: 'json',
  priority: 9,
  requestFormat: null,
  description:
    'Vercel AI SDK v5 UIMessage[] as persisted by useChat (parts, tool-<name>, step-start)',
  extensions: ['.json'],
  detect(root) {
    const list = Array.isArray(root) ? root : isObject(root) ? root.messages : undefined
    if (!Array.isArray(list)) return 'no message array'
    const head = list.slice(0, 50).filter(isObject)
    if (head.length === 0) return 'no message objects'
    const bad = head.findIndex(
      (m) => typeof m.id !== 'string' || typeof m.role !== 'string' || !Array.isArray(m.parts),
    )
    if (bad >= 0) return `messages[${bad}] is not {id, role, parts[]}`
    return true
  },
  closeness: (root) => {
    const list = Array.isArray(root) ? root : isObject(root) ? root.messages : undefined
    return Array.isArray(list) && list.some((m) => isObject(m) && Array.isArray(m.parts)) ? 0.7 : 0
  },
  importParsed: (root, options) => importVercelUiMessages(root, options.keepRaw),
}

/*
 * What chat services' data exports share (ChatGPT's and claude.ai's `conversations.json`): the
 * root is an array of conversations (or `{conversations: […]}`, or one conversation), each with
 * its messages under one key; every conversation is imported, the first opens and the others are
 * listed for the conversation picker. The formats' own modules read one conversation each.
 */
import type { Transcript } from '../model'
import { ImportFailure, importFailure } from './failure'
import { isObject, withConversations } from './util'

/** How one service's export and its conversations look. */
export interface DataExportShape {
  /** The service, in messages: `ChatGPT`, `claude.ai`. */
  service: string
  /** The key holding a conversation's messages: `mapping` (ChatGPT), `chat_messages` (claude.ai). */
  body: string
  /** Whether a body has its type: ChatGPT's `mapping` object, claude.ai's `chat_messages` array. */
  bodyOk(body: unknown): boolean
  /** The body as detection names it: `"mapping" object (the message tree)`. */
  bodyLabel: string
  /** Keys one of which a conversation carries beside its body (`current_node`, `title`, …). */
  conversationKeys: readonly string[]
}

/** How many items detection and closeness look at. */
const HEAD = 50

/** The conversations of an export root: an array, `{conversations: […]}`, or one conversation. */
function conversationsOf(root: unknown, shape: DataExportShape): unknown[] | undefined {
  if (Array.isArray(root)) return root
  if (isObject(root) && Array.isArray(root.conversations)) return root.conversations
  if (isObject(root) && shape.bodyOk(root[shape.body])) return [root]
  return undefined
}

/**
 * An item that is a conversation of the export: its body key and one of the conversation keys (a
 * broken item still counts, so it does not hide the export; the import skips it with a warning).
 */
function isConversationLike(x: unknown, shape: DataExportShape): boolean {
  return isObject(x) && shape.body in x && shape.conversationKeys.some((k) => k in x)
}

/**
 * Detection: the root is an array (or `{conversations}`, or one conversation) whose first 50 items
 * are all conversation-like, one at least with a body of the right type; else the first mismatch.
 */
export function detectDataExport(root: unknown, shape: DataExportShape): true | string {
  const list = conversationsOf(root, shape)
  if (!list) return `not an array of conversations with "${shape.body}"`
  const head = list.slice(0, HEAD)
  if (head.length === 0) return 'an empty list, no conversations'
  const at = head.findIndex((x) => !isConversationLike(x, shape))
  const keys = shape.conversationKeys.map((k) => `"${k}"`)
  if (at >= 0) return `item ${at} has no "${shape.body}" with ${keys.slice(0, 2).join(' or ')}`
  if (!head.some((x) => isObject(x) && shape.bodyOk(x[shape.body]))) return `no item has a ${shape.bodyLabel}`
  return true
}

/** Closeness for the "unknown format" error: 0.9 × the share of the first 50 items with a body. */
export function dataExportCloseness(root: unknown, shape: DataExportShape): number {
  const list = conversationsOf(root, shape)?.slice(0, HEAD) ?? []
  if (list.length === 0) return 0
  return (0.9 * list.filter((x) => isObject(x) && shape.bodyOk(x[shape.body])).length) / list.length
}

/**
 * Imports every conversation of an export with `importOne(conversation, field)` (`field` names it
 * in messages: `[3]`, `conversations[3]`, `conversation`): the first opens and the others are its
 * conversations (`withConversations`), an untitled one `Untitled conversation <n>`. A conversation
 * `isEmpty` says has no messages is counted in a note, one that fails is skipped with a warning;
 * when none imports, the first failure is thrown. Throws an ImportFailure for a root that is not an
 * export. Never modifies `root`.
 */
export function importDataExport(
  root: unknown,
  shape: DataExportShape,
  importOne: (conversation: unknown, field: string) => Transcript,
  isEmpty: (conversation: unknown) => boolean = () => false,
): Transcript {
  const list = conversationsOf(root, shape)
  if (!list) importFailure(`expected a ${shape.service} export: an array of conversations with "${shape.body}"`)
  const wrapped = isObject(root) && Array.isArray(root.conversations)
  const field = (i: number) => (Array.isArray(root) ? `[${i}]` : wrapped ? `conversations[${i}]` : 'conversation')
  const transcripts: Transcript[] = []
  const skipped: string[] = []
  let empty = 0
  let firstError: ImportFailure | undefined
  list.forEach((conversation, i) => {
    if (isEmpty(conversation)) {
      empty++
      return
    }
    try {
      const t = importOne(conversation, field(i))
      if (!t.title) t.title = `Untitled conversation ${i + 1}`
      transcripts.push(t)
    } catch (e) {
      if (!(e instanceof ImportFailure)) throw e
      firstError ??= e
      skipped.push(`${e.message}; skipped`)
    }
  })
  const first = transcripts[0]
  if (!first) {
    if (firstError) throw firstError
    importFailure('the export holds no conversation with messages')
  }
  first.warnings = [...skipped, ...first.warnings]
  if (empty > 0) first.notes = [...(first.notes ?? []), `${empty} conversation(s) without messages are not listed`]
  return withConversations(transcripts, 'conversation')
}

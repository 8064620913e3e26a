/**
 * Readable failure-mode warnings: the engine's sentence names messages by id (a Claude Code
 * UUID, `summary:summarize:1`), which the columns never show; the page names them as the
 * columns label rows instead (`#40`, `after #0`). Only the ids the warning lists
 * (`messageIds`) are renamed, and only as whole tokens.
 */

/** One piece of a warning's sentence: plain text, or a message id renamed to its `label`. */
export interface WarningPiece {
  text: string
  /** The id this piece renames, when it is one. */
  id?: string
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * Cuts `message` into pieces where an id of `labels` occurs as a whole token (no letter, digit or
 * `_` on either side), each such piece's text being its label; the rest stays as is. Longer ids
 * win where one is a prefix of another (`m2` vs `m21`). Joined, the texts read as the sentence
 * with ids renamed. Pure.
 */
export function warningPieces(message: string, labels: ReadonlyMap<string, string>): WarningPiece[] {
  const ids = [...labels.keys()].filter((id) => id !== '').sort((a, b) => b.length - a.length)
  if (ids.length === 0) return [{ text: message }]
  const re = new RegExp(`(?<![\\w])(?:${ids.map(escapeRegExp).join('|')})(?![\\w])`, 'g')
  const out: WarningPiece[] = []
  let at = 0
  for (const m of message.matchAll(re)) {
    const start = m.index
    if (start > at) out.push({ text: message.slice(at, start) })
    out.push({ text: labels.get(m[0]) ?? m[0], id: m[0] })
    at = start + m[0].length
  }
  if (at < message.length) out.push({ text: message.slice(at) })
  return out
}

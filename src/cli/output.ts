/**
 * The CLI's output boundary: every string written to standard output or error passes
 * `visibleControls` (main.ts wraps the writers every command gets), and a failed write of the
 * output ends the process with one line (`writeFailure`).
 */

/**
 * Characters a terminal may act on instead of showing: C0 controls but tab and line feed (ESC
 * opens the sequences that set the window title, clear the screen or write the clipboard —
 * OSC 0, CSI 2J, OSC 52 — and CR or BS overwrite what was printed), DEL, the C1 controls
 * (U+0080–U+009F: U+009B is a CSI and U+009D an OSC on their own) and the line and paragraph
 * separators U+2028/U+2029 (a JavaScript string literal ends at them).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is its purpose
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g

/**
 * `text` with each character of `CONTROL` written as its `\uXXXX` escape (`\u001b`, `\u009b`,
 * `\u2028`), so a transcript's title, a warning quoting it, an error snippet or a file name shows
 * the sequence instead of running it; tab and line feed (the layout of tables and JSON) stay.
 * The same text is valid JSON where it was: `JSON.stringify` already escapes C0 controls inside
 * strings and writes nothing but spaces and line feeds outside them, so the characters replaced in
 * `--json` output are C1 controls, DEL and U+2028/U+2029 inside strings, and their escapes parse
 * back to the same characters.
 */
export function visibleControls(text: string): string {
  if (text.search(CONTROL) === -1) return text
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/**
 * The one line that ends the CLI when its output cannot be written (`> /dev/full`: ENOSPC), or
 * null when the reader has gone (EPIPE: `| head -1` read what it wanted; that is no error, as for
 * any Unix tool).
 */
export function writeFailure(e: NodeJS.ErrnoException): string | null {
  if (e.code === 'EPIPE') return null
  return `error: cannot write the output (${e.message.split('\n')[0]})`
}

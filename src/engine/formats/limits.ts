/**
 * The input budget the page and the CLI share: how many bytes one input may bring into memory,
 * and how sizes are said in the messages that refuse one.
 */

/**
 * Most bytes one input may hold, 512 MiB: a file the CLI reads (its `--max-size` default), a
 * folder's files together (a folder dropped on the page is read into the worker at once; the
 * CLI's folder input), and an archive's entries uncompressed together (the sum of the sizes
 * its central directory declares, so a few MB of deflate declaring gigabytes — a zip bomb — is
 * refused before anything is inflated). A transcript's text must also fit one string (V8's
 * limit is about 512 MB of UTF-16); the largest real sessions are tens of MB.
 */
export const MAX_INPUT_BYTES = 512 * 1024 * 1024

/**
 * `bytes` as messages say it, in binary units rounded to a whole number: `512 MB` from 1 MiB up,
 * `64 KB` from 1 KiB up, else `100 bytes`.
 */
export function byteSize(bytes: number): string {
  const whole = (n: number, unit: string) => `${Math.round(n).toLocaleString('en-US')} ${unit}`
  if (bytes >= 1024 * 1024) return whole(bytes / (1024 * 1024), 'MB')
  if (bytes >= 1024) return whole(bytes / 1024, 'KB')
  return whole(bytes, bytes === 1 ? 'byte' : 'bytes')
}

/**
 * The refusal of one file of `bytes` over `limit` (`MAX_INPUT_BYTES`), said before any of it is
 * read: `this file holds 600 MB, over the 512 MB limit for one input; it was not read`.
 */
export function fileOverLimit(bytes: number, limit = MAX_INPUT_BYTES): string {
  return `this file holds ${byteSize(bytes)}, over the ${byteSize(limit)} limit for one input; it was not read`
}

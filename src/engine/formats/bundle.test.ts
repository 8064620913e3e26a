/**
 * The error about a bundle no format reads lists its first entry names, each on the error's one
 * line: a damaged zip directory can hand back names holding raw bytes (line breaks, NULs) and
 * running for kilobytes.
 */
import { describe, expect, it } from 'vitest'
import { importFileBundle } from './index'
import type { FileBundle } from './types'

function bundleOf(names: string[]): FileBundle {
  return {
    entries: names.map((name) => ({ name, bytes: 1, compression: 0 })),
    read: () => new Map(),
    json: () => null,
    text: () => '',
  }
}

describe('the entry names an unknown bundle lists', () => {
  it('are one line each: control characters become U+FFFD, a name past 80 code points is cut with …', () => {
    const long = `dir/${'x'.repeat(200)}.bin`
    const r = importFileBundle(bundleOf(['a\nb.txt', 'c\u0000\u001b[2Jd.txt', long]), 'zip archive')
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.error.message).toContain(`(it holds a\ufffdb.txt, c\ufffd\ufffd[2Jd.txt, dir/${'x'.repeat(76)}…); looked for `)
    // eslint-disable-next-line no-control-regex -- control characters are the subject
    expect(r.error.message).not.toMatch(/[\u0000-\u001f]/)
  })
})

import { strToU8, zipSync } from 'fflate'
import { describe, expect, it } from 'vitest'
import { importBytes } from './index'
import { isZipArchive } from './zip'

const error = (bytes: Uint8Array) => {
  const r = importBytes(bytes, { fileName: 'upload.eval' })
  if (r.ok) throw new Error('expected an import error')
  return r.error
}

describe('zip archives dropped as transcripts', () => {
  it('isZipArchive: a local file header or an empty archive, nothing else', () => {
    expect(isZipArchive(zipSync({ 'a.txt': strToU8('x') }))).toBe(true)
    expect(isZipArchive(zipSync({}))).toBe(true)
    expect(isZipArchive(strToU8('PK is how this text starts'))).toBe(false)
    expect(isZipArchive(strToU8('{"messages": []}'))).toBe(false)
    expect(isZipArchive(new Uint8Array([0x50, 0x4b]))).toBe(false)
  })

  it('a zip that is not an Inspect log says so and names what it holds', () => {
    const entries: Record<string, Uint8Array> = {}
    for (const n of ['conversations.json', 'chat.html', 'user.json', 'a.png', 'b.png', 'c.png'])
      entries[n] = strToU8('{}')
    expect(error(zipSync(entries))).toEqual({
      message:
        'a zip archive without header.json: not an Inspect .eval log ' +
        '(it holds conversations.json, chat.html, user.json, a.png, b.png, …)',
    })
    expect(error(zipSync({}))).toEqual({
      message: 'a zip archive without header.json: not an Inspect .eval log (it is empty)',
    })
  })

  it('a truncated zip is a one-line error, not an exception', () => {
    const whole = zipSync({ 'header.json': strToU8('{}'), 'samples/1_epoch_1.json': strToU8('{}') })
    expect(error(whole.subarray(0, whole.length - 30))).toEqual({
      message: 'the zip archive cannot be read (invalid zip data); is it truncated?',
    })
  })
})

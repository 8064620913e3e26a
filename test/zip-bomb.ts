/**
 * Archive bombs for tests and the bench: a zip whose entries each inflate to `entryBytes` zero
 * bytes from one small deflate stream written once per entry (a real bomb: each entry
 * decompresses to the size it declares). Hand-written records (PKWARE APPNOTE 4.3.7 local file
 * header, 4.3.12 central directory header, 4.3.16 end of central directory); CRC-32 left 0.
 */
import { deflateSync, strToU8 } from 'fflate'

/** A zip of `names`, each entry deflated to `entryBytes` zero bytes (`entryBytes` < 4 GiB). */
export function zipBomb(names: readonly string[], entryBytes: number): Uint8Array {
  const data = deflateSync(new Uint8Array(entryBytes), { level: 1 })
  const parts: Uint8Array[] = []
  const central: Uint8Array[] = []
  let offset = 0
  const header = (size: number, fields: [number, number][]) => {
    const b = new Uint8Array(size)
    const v = new DataView(b.buffer)
    for (const [at, value] of fields) {
      if (at < 0) v.setUint16(-at, value, true)
      else v.setUint32(at, value, true)
    }
    return b
  }
  for (const n of names) {
    const name = strToU8(n)
    // Negative offsets are 16-bit fields, the others 32-bit (little-endian).
    const local = header(30, [[0, 0x04034b50], [-4, 20], [-8, 8], [18, data.length], [22, entryBytes], [-26, name.length]])
    central.push(
      header(46, [[0, 0x02014b50], [-4, 20], [-6, 20], [-10, 8], [20, data.length], [24, entryBytes], [-28, name.length], [42, offset]]),
      name,
    )
    parts.push(local, name, data)
    offset += local.length + name.length + data.length
  }
  const size = central.reduce((n, b) => n + b.length, 0)
  const end = header(22, [[0, 0x06054b50], [-8, names.length], [-10, names.length], [12, size], [16, offset]])
  const out = new Uint8Array(offset + size + end.length)
  let at = 0
  for (const b of [...parts, ...central, end]) {
    out.set(b, at)
    at += b.length
  }
  return out
}

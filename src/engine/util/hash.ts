import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'

/**
 * SHA-256 (lowercase hex) of the UTF-8 bytes of `text`. Synchronous and identical in the
 * worker, Node and the CLI (@noble/hashes: audited, dependency-free; WebCrypto is async-only).
 * Source: seed 000 `Digest::SHA256.hexdigest(content)`.
 */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)))
}

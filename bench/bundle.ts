/**
 * Main-thread JavaScript of a production build (BENCH.md B7): the entry script of index.html and
 * every chunk it imports, statically or dynamically, gzip-compressed. Chunks reached only through
 * `new URL(…, import.meta.url)` (Web Workers) and what they import (the tokenizer rank tables)
 * run in workers and are left out.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'

/** One main-thread chunk: its path under the build folder and its size in bytes, raw and gzip -9. */
export interface ChunkSize {
  file: string
  bytes: number
  gzipBytes: number
}

// import("./x.js"), from "./x.js", import "./x.js" with any quote; `new URL(` is not matched.
const IMPORT_RE = /(?:\bimport\s*\(\s*|\bfrom\s*|\bimport\s*)(["'`])(\.{1,2}\/[^"'`]+?\.js|\/[^"'`]+?\.js)\1/g

/** Gzip sizes of every JS chunk the page's main thread can load, from a build in `distDir`. */
export function mainThreadChunks(distDir: string): ChunkSize[] {
  const html = readFileSync(join(distDir, 'index.html'), 'utf8')
  const entries = [...html.matchAll(/<script[^>]+type="module"[^>]+src="([^"]+)"/g)].map((m) => m[1] as string)
  if (entries.length === 0) throw new Error(`no module script in ${distDir}/index.html`)
  const seen = new Set<string>()
  const queue = entries.map((src) => src.replace(/^\//, ''))
  const out: ChunkSize[] = []
  while (queue.length > 0) {
    const file = queue.shift() as string
    if (seen.has(file)) continue
    seen.add(file)
    const code = readFileSync(join(distDir, file))
    out.push({ file, bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length })
    const dir = file.includes('/') ? file.slice(0, file.lastIndexOf('/') + 1) : ''
    for (const m of code.toString('utf8').matchAll(IMPORT_RE)) {
      const spec = m[2] as string
      queue.push(spec.startsWith('/') ? spec.slice(1) : join(dir, spec).replace(/\\/g, '/'))
    }
  }
  return out
}

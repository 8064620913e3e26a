/**
 * The naive floor of BENCH.md B3/B10 and the counter-alone reference of B1, as a module worker
 * built for the bench only (bench/run.ts builds it into the preview folder; the app never loads
 * it): one thread, `JSON.parse` of every line of a Claude Code JSONL, then every model-visible text
 * counted with the fastest counter (gpt-tokenizer `countTokens`, tuned as the app tunes it).
 * Message `{ bytes }` (transferred) → `{ parseMs, countMs, totalMs, texts, contentBytes, tokens }`;
 * a message `{ warm: true }` only loads the rank tables (outside the timing).
 */
import { loadTextCounter } from '../src/engine/tokens/count'

const counter = loadTextCounter('o200k_base')

function collect(content: unknown, out: string[]): void {
  if (typeof content === 'string') {
    out.push(content)
    return
  }
  if (!Array.isArray(content)) return
  for (const block of content as Record<string, unknown>[]) {
    if (typeof block.text === 'string') out.push(block.text)
    if (typeof block.thinking === 'string') out.push(block.thinking)
    if (block.type === 'tool_use') {
      out.push(String(block.name ?? ''), JSON.stringify(block.input ?? {}))
    }
    if (block.type === 'tool_result') collect(block.content, out)
  }
}

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<{ bytes?: ArrayBuffer; warm?: boolean }>) => void) | null
  postMessage(message: unknown): void
}

scope.onmessage = async (e) => {
  const count = await counter
  if (e.data.warm || !e.data.bytes) {
    scope.postMessage({ warm: true })
    return
  }
  const t0 = performance.now()
  const text = new TextDecoder().decode(e.data.bytes)
  const texts: string[] = []
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    try {
      const record = JSON.parse(line) as { message?: { content?: unknown } }
      collect(record.message?.content, texts)
    } catch {
      // A bad line is skipped, as a reader would.
    }
  }
  const t1 = performance.now()
  let tokens = 0
  for (const t of texts) if (t !== '') tokens += count(t)
  const t2 = performance.now()
  const encoder = new TextEncoder()
  let contentBytes = 0
  for (const t of texts) contentBytes += encoder.encode(t).length
  scope.postMessage({ parseMs: t1 - t0, countMs: t2 - t1, totalMs: t2 - t0, texts: texts.length, contentBytes, tokens })
}

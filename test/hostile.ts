/**
 * Hostile and huge inputs, generated: the shapes an attacker (or an unlucky real session) hands
 * the importers and the pipeline. Each generator is deterministic (same arguments, same text) and
 * returns the file's text; sizes are in code units of the returned string unless a name says
 * otherwise. Used by the fuzz and robustness tests and by `npm run bench`. Everything is invented.
 */

/** A tiny deterministic PRNG (mulberry32) so generated inputs are byte-identical run to run. */
function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * An Anthropic Messages request whose one user message holds a `tool_result` whose `content`
 * nests `depth` levels of further `tool_result` blocks (the innermost holds a text block): the
 * shape that overflowed a recursive walk. `depth` 10,000 and 100,000 are the acceptance sizes.
 */
export function deepAnthropicRequest(depth: number): string {
  const open = '{"type":"tool_result","tool_use_id":"toolu_1","content":['
  const inner = '{"type":"text","text":"deep"}'
  return (
    '{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[' +
    '{"role":"user","content":"list the files"},' +
    '{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"ls","input":{}}]},' +
    '{"role":"user","content":[' +
    open.repeat(depth) +
    inner +
    ']}'.repeat(depth) +
    ']}]}'
  )
}

/**
 * An OpenAI chat file whose assistant tool call carries `arguments` that are a JSON value
 * nested `depth` arrays deep (`[[[…]]]`), and whose first message has an unknown field nested
 * as deep: nesting where no importer looks, which a generic deep walk (a clone, a stringify)
 * would still overflow on.
 */
export function deepOpenAiChat(depth: number): string {
  const nested = '['.repeat(depth) + ']'.repeat(depth)
  return (
    '{"messages":[' +
    `{"role":"user","content":"go","metadata":${nested}},` +
    `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":${JSON.stringify(nested)}}}]},` +
    '{"role":"tool","tool_call_id":"call_1","content":"done"}' +
    ']}'
  )
}

/**
 * An OpenAI chat file of one user message followed by `count` tool results that answer no call
 * (`tool_call_id` "orphan_<i>"): 200,000 of them made a spread over the array overflow.
 */
export function orphanToolResults(count: number): string {
  const parts: string[] = ['{"messages":[{"role":"user","content":"start"}']
  for (let i = 0; i < count; i++) {
    parts.push(`,{"role":"tool","tool_call_id":"orphan_${i}","content":"result ${i} of the batch job"}`)
  }
  parts.push(']}')
  return parts.join('')
}

/**
 * A plain OpenAI chat of `count` messages alternating user / assistant, each a short sentence
 * with a fact (a path or an id) now and then: the shape of the 100,000- and 1,000,000-message
 * acceptance sizes.
 */
export function longChat(count: number, seed = 7): string {
  const r = rng(seed)
  const parts: string[] = ['{"messages":[']
  for (let i = 0; i < count; i++) {
    const role = i % 2 === 0 ? 'user' : 'assistant'
    const fact = r() < 0.1 ? ` See src/mod${i % 97}/file${i}.ts.` : ''
    const text = role === 'user' ? `Step ${i}: please continue.${fact}` : `Done with step ${i}.${fact}`
    parts.push(`${i > 0 ? ',' : ''}{"role":"${role}","content":${JSON.stringify(text)}}`)
  }
  parts.push(']}')
  return parts.join('')
}

/** Base64 of `bytes` zero bytes would be `A` repeated; this is base64 of pseudo-random bytes. */
export function base64Text(chars: number, seed = 3): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
  const r = rng(seed)
  let out = ''
  for (let i = 0; i < chars; i++) out += alphabet[Math.floor(r() * 64)]
  return out
}

/** English-like prose of about `chars` code units (sentences, punctuation, newlines). */
export function proseText(chars: number, seed = 5): string {
  const words = [
    'the', 'agent', 'reads', 'a', 'file', 'and', 'then', 'writes', 'tests', 'for', 'every', 'module',
    'before', 'running', 'build', 'which', 'fails', 'on', 'one', 'import', 'so', 'it', 'fixes', 'that',
  ]
  const r = rng(seed)
  const parts: string[] = []
  let n = 0
  let sentence = 0
  while (n < chars) {
    const w = words[Math.floor(r() * words.length)]!
    parts.push(w)
    n += w.length + 1
    if (++sentence > 12 && r() < 0.2) {
      parts.push(r() < 0.3 ? '.\n' : '.')
      sentence = 0
    }
  }
  return parts.join(' ').slice(0, chars)
}

/**
 * `count` lines of `find .`-like output (`./src/a/b/file123.ts`), one per line: a tool output
 * dense with path facts. 40,000 paths is about 1.1 MB.
 */
export function findOutput(count: number, seed = 11): string {
  const dirs = ['src', 'lib', 'test', 'docs', 'node_modules/pkg', 'build/out', 'scripts']
  const subs = ['core', 'ui', 'util', 'api', 'model', 'io']
  const exts = ['ts', 'tsx', 'js', 'json', 'md', 'css']
  const r = rng(seed)
  const lines: string[] = ['.']
  for (let i = 0; i < count; i++) {
    const d = dirs[Math.floor(r() * dirs.length)]!
    const s = subs[Math.floor(r() * subs.length)]!
    const e = exts[Math.floor(r() * exts.length)]!
    lines.push(`./${d}/${s}/file${i}.${e}`)
  }
  return lines.join('\n')
}

/**
 * An OpenAI chat file whose one tool call's result is `output` (e.g. `base64Text(1e6)`,
 * `'A'.repeat(1e6)`, `findOutput(40000)`): the way a huge text reaches the pipeline.
 */
export function chatWithToolOutput(output: string, name = 'bash'): string {
  return JSON.stringify({
    messages: [
      { role: 'user', content: 'Inspect the workspace and report what you find.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name, arguments: '{"cmd":"find ."}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: output },
      { role: 'assistant', content: 'The workspace has been listed.' },
    ],
  })
}

/**
 * A Claude Code session JSONL with `forks` forks: a main line of user/assistant records where
 * every record after the first few gets a sibling (a retried response or an edited prompt) that
 * hangs off the same parent, as edits and retries write them. 60,000 forks is about 16 MB.
 */
export function claudeCodeForks(forks: number): string {
  const session = '3f1c2d4e-0000-4000-8000-000000000001'
  const lines: string[] = []
  let t = Date.UTC(2026, 10, 1, 9, 0, 0)
  const stamp = () => new Date((t += 1000)).toISOString()
  const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`
  let next = 1
  const record = (parent: string | null, role: 'user' | 'assistant', text: string): string => {
    const id = uuid(next++)
    const message =
      role === 'user'
        ? { role: 'user', content: text }
        : {
            id: `msg_${id.slice(-12)}`,
            type: 'message',
            role: 'assistant',
            model: 'claude-sonnet-4-5',
            content: [{ type: 'text', text }],
            stop_reason: 'end_turn',
            usage: { input_tokens: 10, output_tokens: 5 },
          }
    lines.push(
      JSON.stringify({
        parentUuid: parent,
        isSidechain: false,
        userType: 'external',
        cwd: '/home/dev/project',
        sessionId: session,
        version: '2.1.3',
        type: role,
        message,
        uuid: id,
        timestamp: stamp(),
      }),
    )
    return id
  }
  let parent: string | null = null
  let made = 0
  let step = 0
  while (made < forks || step < 4) {
    const role = step % 2 === 0 ? 'user' : 'assistant'
    const text = role === 'user' ? `Step ${step}: run the tests again.` : `Step ${step}: tests pass.`
    if (step >= 2 && made < forks) {
      record(parent, role, `${text} (retry)`)
      made++
    }
    parent = record(parent, role, text)
    step++
  }
  return lines.join('\n') + '\n'
}

/**
 * An OpenAI chat of one long turn: a user request, then `calls` tool calls each answered by its
 * tool result (so `2 * calls + 2` messages), then one final answer. The rolling replay has one
 * turn end, so its one pass folds all but the kept tail into a single summary: 100,000 calls
 * make a summary covering about 200,000 messages.
 */
export function longToolTurn(calls: number): string {
  const parts: string[] = ['{"messages":[{"role":"user","content":"Check every module and report."}']
  for (let i = 0; i < calls; i++) {
    const args = JSON.stringify(JSON.stringify({ path: `src/mod${i % 97}/file${i}.ts` }))
    parts.push(
      `,{"role":"assistant","content":null,"tool_calls":[{"id":"call_${i}","type":"function","function":{"name":"read","arguments":${args}}}]}`,
      `,{"role":"tool","tool_call_id":"call_${i}","content":"ok ${i}"}`,
    )
  }
  parts.push(',{"role":"assistant","content":"All modules checked."}]}')
  return parts.join('')
}

/**
 * A plain OpenAI chat of `count` messages alternating user / assistant where every message states
 * several facts (an order id, a file path, an amount, a port, a commit-like hash), each distinct:
 * the fact-dense shape whose facts table once repeated the whole summary under every lost fact.
 */
export function factDenseChat(count: number, seed = 13): string {
  const r = rng(seed)
  const parts: string[] = ['{"messages":[']
  for (let i = 0; i < count; i++) {
    const role = i % 2 === 0 ? 'user' : 'assistant'
    const hash = Math.floor(r() * 0xffffffff).toString(16).padStart(8, '0')
    const facts = `order ORD-${10000 + i}, file src/pkg${i % 31}/mod${i}.ts, total $${(i % 500) + 10}.${i % 100 < 10 ? '0' : ''}${i % 100}, port ${3000 + (i % 900)}, commit ${hash}`
    const text = role === 'user' ? `Please check ${facts}.` : `Checked ${facts}; all good.`
    parts.push(`${i > 0 ? ',' : ''}{"role":"${role}","content":${JSON.stringify(text)}}`)
  }
  parts.push(']}')
  return parts.join('')
}

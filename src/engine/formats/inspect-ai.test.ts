import { readFileSync } from 'node:fs'
import { strToU8, zipSync } from 'fflate'
import { describe, expect, it } from 'vitest'
import { transcriptCounts } from '../../../test/fixtures'
import { checkValidity } from '../analysis/checks'
import { contentText } from '../content'
import type { Transcript } from '../model'
import { importBytes } from './index'
import { importInspectAIRoot, inspectAIImporter, resolveAttachments } from './inspect-ai'
import { runImporter } from './failure'
import { registryContractViolations } from './test-helpers'

const sampleText = (name: string) =>
  readFileSync(new URL(`../../../public/samples/${name}`, import.meta.url), 'utf8')

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  }
  return value
}

const log = (sample: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  version: 2,
  status: 'success',
  eval: { task: 'demo_task' },
  samples: [{ id: 1, epoch: 1, ...sample }],
  ...extra,
})

const sys = { id: 's', role: 'system', content: 'Be careful.' }
const user = { id: 'u', role: 'user', content: 'Fix it.', source: 'input' }

describe('importInspectAIRoot', () => {
  it('maps content lists, dict arguments, tool_call_id and function', () => {
    const t = importInspectAIRoot(
      deepFreeze(
        log({
          messages: [
            sys,
            user,
            {
              id: 'a',
              role: 'assistant',
              content: [
                { type: 'reasoning', reasoning: 'think', signature: 'sig', redacted: false },
                { type: 'text', text: 'Listing.' },
              ],
              tool_calls: [{ id: 'c1', function: 'bash', arguments: { cmd: 'ls' } }],
            },
            { id: 't', role: 'tool', content: 'a\nb', tool_call_id: 'c1', function: 'bash' },
          ],
        }),
      ),
    )
    expect(t.title).toBe('demo_task')
    expect(t.messages.map((m) => m.id)).toEqual(['s', 'u', 'a', 't'])
    expect(t.messages[2]?.content).toEqual([
      { type: 'thinking', variant: 'reasoning', text: 'think', signature: 'sig' },
      { type: 'text', text: 'Listing.' },
    ])
    expect(t.messages[2]?.toolCalls).toEqual([
      { id: 'c1', name: 'bash', arguments: '{"cmd":"ls"}' },
    ])
    expect(t.messages[3]).toMatchObject({ role: 'tool', toolCallId: 'c1', toolName: 'bash' })
    expect(t.warnings).toEqual([])
  })

  it('error (and the old tool_error) marks a tool result as an error', () => {
    const t = importInspectAIRoot(
      log({
        messages: [
          user,
          {
            role: 'assistant',
            content: '',
            tool_calls: [
              { id: 'c1', function: 'f', arguments: {} },
              { id: 'c2', function: 'f', arguments: {} },
            ],
          },
          {
            role: 'tool',
            content: '',
            tool_call_id: 'c1',
            error: { type: 'timeout', message: 'took too long' },
          },
          { role: 'tool', content: 'x', tool_call_id: 'c2', tool_error: 'permission denied' },
        ],
      }),
    )
    expect(t.messages.map((m) => m.isError)).toEqual([undefined, undefined, true, true])
    // The text Inspect's providers send in place of the content: `Error: <message>`.
    expect(t.messages.map((m) => m.content)).toEqual([
      'Fix it.',
      '',
      'Error: took too long',
      'Error: permission denied',
    ])
    // Null ids become m<index>.
    expect(t.messages.map((m) => m.id)).toEqual(['u', 'm1', 'm2', 'm3'])
  })

  it('resolves attachment:// references through sample.attachments, in strings and parts', () => {
    const t = importInspectAIRoot(
      log({
        messages: [
          { id: 'u', role: 'user', content: 'attachment://aaa' },
          {
            id: 'a',
            role: 'assistant',
            content: [{ type: 'text', text: 'attachment://bbb' }],
            tool_calls: [{ id: 'c1', function: 'f', arguments: { code: 'attachment://ccc' } }],
          },
          { id: 't', role: 'tool', content: 'attachment://zzz', tool_call_id: 'c1' },
        ],
        attachments: { aaa: 'long prompt', bbb: 'long answer', ccc: 'print(1)' },
      }),
    )
    expect(t.messages[0]?.content).toBe('long prompt')
    expect(t.messages[1]?.content).toBe('long answer')
    expect(t.messages[1]?.toolCalls?.[0]?.arguments).toBe('{"code":"print(1)"}')
    expect(t.messages[2]?.content).toBe('attachment://zzz')
    expect(t.warnings).toEqual([
      '1 attachment:// reference(s) not found in samples[0].attachments, kept as is',
    ])
  })

  it('resolveAttachments copies, never mutates', () => {
    const value = deepFreeze({ a: ['attachment://h', 1, null], b: 'plain' })
    const missing = new Set<string>()
    expect(resolveAttachments(value, { h: 'text' }, missing)).toEqual({
      a: ['text', 1, null],
      b: 'plain',
    })
    expect(missing.size).toBe(0)
  })

  it('several samples: the first is open, the others are further conversations', () => {
    const root = log({ messages: [user] })
    const t = importInspectAIRoot({
      ...root,
      samples: [...root.samples, { id: 2, epoch: 1, messages: [sys] }, { id: 3, messages: [] }],
    })
    expect(t.messages.map((m) => m.id)).toEqual(['u'])
    expect(t.title).toBe('demo_task: sample 1 (epoch 1)')
    expect(t.sidechains?.map((s) => [s.title, s.messages.map((m) => m.id)])).toEqual([
      ['sample 2 (epoch 1)', ['s']],
    ])
    // The third has no messages: skipped, and said.
    expect(t.warnings).toEqual(['samples[2] has no messages; sample skipped'])
    expect(t.notes).toEqual([
      '2 samples in this file: "demo_task: sample 1 (epoch 1)" is open; ' +
        'the other one is listed as a further conversation',
    ])
  })

  it('a first sample that cannot be imported leaves the next one open', () => {
    const root = log({ messages: 'x' })
    const t = importInspectAIRoot({ ...root, samples: [...root.samples, { id: 7, messages: [user] }] })
    expect(t.title).toBe('demo_task')
    expect(t.messages.map((m) => m.id)).toEqual(['u'])
    expect(t.sidechains).toBeUndefined()
    expect(t.warnings).toEqual(['samples[0].messages is not an array; sample skipped'])
  })

  it('places a compaction event after the last message an earlier event refers to', () => {
    const t = importInspectAIRoot(
      log({
        messages: [
          user,
          {
            id: 'a1',
            role: 'assistant',
            content: 'x',
            tool_calls: [{ id: 'c1', function: 'f', arguments: {} }],
          },
          { id: 't1', role: 'tool', content: 'r', tool_call_id: 'c1' },
          { id: 'a2', role: 'assistant', content: 'after' },
        ],
        events: [
          {
            event: 'model',
            input: [{ id: 'u' }],
            output: { choices: [{ message: { id: 'a1' } }] },
          },
          { event: 'tool', id: 'c1', message_id: 't1' },
          {
            event: 'compaction',
            type: 'summary',
            tokens_before: 9000,
            tokens_after: 1200,
            source: 'inspect',
          },
          {
            event: 'model',
            input: [{ id: 'u' }],
            output: { choices: [{ message: { id: 'a2' } }] },
          },
        ],
      }),
    )
    expect(t.recordedCompactions).toEqual([
      {
        atIndex: 3,
        atMessageId: 'a2',
        trigger: 'summary',
        tokensBefore: 9000,
        tokensAfter: 1200,
        summaryText: null,
        source: 'inspect-ai',
      },
    ])
  })

  it('the sample: no attachment reference is left; the compaction is before message 26', () => {
    const root = JSON.parse(sampleText('inspect-ai-eval.json')) as unknown
    const t = importInspectAIRoot(root)
    for (const m of t.messages) expect(contentText(m.content)).not.toContain('attachment://')
    // The last tool event before the compaction event returns message 25 (the second edit
    // result); the next model event produces message 26.
    expect(t.recordedCompactions[0]).toMatchObject({
      atIndex: 26,
      tokensBefore: 12506,
      tokensAfter: 3704,
      trigger: 'summary',
      summaryText: null,
    })
  })
})

describe('Inspect AI bad input', () => {
  it('a header-only log names samples', () => {
    const r = runImporter(inspectAIImporter, { version: 2, eval: {}, results: {} }, {})
    expect(r.ok).toBe(false)
    if (!r.ok) {
      expect(r.error.field).toBe('samples')
      expect(r.error.message).toMatch(/no samples/)
    }
  })

  it('messages that are not an array name the field', () => {
    const r = runImporter(inspectAIImporter, log({ messages: 'x' }), {})
    expect(r).toEqual({
      ok: false,
      error: { message: 'samples[0].messages is not an array', field: 'samples[0].messages' },
    })
  })

  it('detect names every missing key, and only those', () => {
    expect(inspectAIImporter.detect({ version: '2', eval: {}, samples: [] })).toBe(
      'no numeric "version" at the top level',
    )
    expect(inspectAIImporter.detect({ version: 2, samples: [] })).toBe(
      'no "eval" object at the top level',
    )
    expect(inspectAIImporter.detect({ eval: [] })).toBe(
      'no numeric "version", "eval" object and "samples" (or "results") at the top level',
    )
    expect(inspectAIImporter.detect({ version: 2, results: {} })).toBe('no "eval" object at the top level')
    expect(inspectAIImporter.detect({ eval: {} })).toBe('no numeric "version" and "samples" (or "results") at the top level')
    expect(inspectAIImporter.detect(log({ messages: [] }))).toBe(true)
  })

  it('messages with an unknown role are skipped with a warning naming them', () => {
    const t = importInspectAIRoot(log({ messages: [user, { role: 'critic', content: 'x' }] }))
    expect(t.messages).toHaveLength(1)
    expect(t.warnings).toEqual([
      'samples[0].messages[1].role: "critic" is not system/user/assistant/tool, skipped',
    ])
  })
})

const counts = transcriptCounts

const json = (value: unknown) => strToU8(JSON.stringify(value))
const header = { version: 2, status: 'success', eval: { task: 'demo_task' }, plan: {}, stats: {} }

/** An `.eval` zip of `header.json` (unless `entries` replaces it) and the given entries. */
function evalZip(entries: Record<string, unknown>, withHeader = true): Uint8Array {
  const files: Record<string, Uint8Array> = withHeader ? { 'header.json': json(header) } : {}
  for (const [name, value] of Object.entries(entries))
    files[name] = value instanceof Uint8Array ? value : json(value)
  return zipSync(files)
}

function importedEval(bytes: Uint8Array): Transcript {
  const r = importBytes(bytes, { fileName: 'log.eval' })
  if (!r.ok) throw new Error(r.error.message)
  return r.transcript
}

describe('Inspect AI .eval logs (zip)', () => {
  /*
   * test/fixtures/formats/inspect-ai-sample.eval (scripts/gen-inspect-eval-fixture.mjs), counted
   * from its JSON: samples/1_epoch_1.json has 10 messages (1 system, 1 user, 4 assistant, 4 tool),
   * 4 tool_calls (a1 two in parallel, a2, a3), 4 tool messages of which t3 has `error`, and one
   * `compaction` event right after the tool event of t2 (the 5th message), so its boundary is a2
   * (index 5). samples/2_epoch_1.json has 6 (2 user, 3 assistant, 1 tool), 2 tool_calls; the
   * second (toolu_12) gets no result before the user's u2. Entries were written sample 2 first;
   * Inspect's order (epoch, then id) opens sample 1.
   */
  const fixture = readFileSync(
    new URL('../../../test/fixtures/formats/inspect-ai-sample.eval', import.meta.url),
  )

  it('the fixture: sample 1 is open, sample 2 is a further conversation, counts as in the file', () => {
    const t = importedEval(fixture)
    expect(t.format).toBe('inspect-ai')
    expect(t.title).toBe('fix_rates: sample 1 (epoch 1)')
    expect(counts(t)).toEqual({
      byRole: { system: 1, user: 1, assistant: 4, tool: 4 },
      calls: 4,
      results: 4,
      errors: 1,
    })
    // t3 has content '' and error.message 'Command timed out before completing.'.
    expect(t.messages.find((m) => m.id === 't3')).toMatchObject({
      isError: true,
      content: 'Error: Command timed out before completing.',
    })
    // attachment://5f1c9a7e2b is the rates.py listing.
    expect(contentText(t.messages.find((m) => m.id === 't2')?.content ?? '')).toContain(
      'def rate_for(zone: int, weight_kg: float) -> float:',
    )
    expect(t.recordedCompactions).toEqual([
      {
        atIndex: 5,
        atMessageId: 'a2',
        trigger: 'summary',
        tokensBefore: 18220,
        tokensAfter: 4105,
        summaryText: null,
        source: 'inspect-ai',
      },
    ])
    expect(checkValidity(t.messages)).toEqual([])
    expect(t.warnings).toEqual([])
    expect(t.notes).toEqual([
      '2 samples in this file: "fix_rates: sample 1 (epoch 1)" is open; ' +
        'the other one is listed as a further conversation',
    ])
    const [other, ...none] = t.sidechains ?? []
    expect(none).toEqual([])
    if (!other) throw new Error('no second sample')
    expect(other.title).toBe('sample 2 (epoch 1)')
    expect(counts(other)).toEqual({
      byRole: { system: 0, user: 2, assistant: 3, tool: 1 },
      calls: 2,
      results: 1,
      errors: 0,
    })
    expect(checkValidity(other.messages).map((p) => [p.rule, p.messageIds])).toEqual([
      ['missing-tool-result', ['a2', 'u2']],
    ])
    expect(other.warnings).toEqual([])
  })

  it('a .eval and the same log in JSON import alike (one sample picker)', () => {
    const sample = (id: number | string, epoch: number) => ({
      id,
      epoch,
      messages: [
        { id: `u-${id}`, role: 'user', content: `question ${id}` },
        { id: `a-${id}`, role: 'assistant', content: `answer ${id}` },
      ],
    })
    // Written in finishing order; Inspect reads them by epoch, then id (numbers as numbers).
    const samples = [sample(10, 1), sample(2, 1), sample(1, 2)]
    const fromZip = importedEval(
      evalZip(Object.fromEntries(samples.map((s) => [`samples/${s.id}_epoch_${s.epoch}.json`, s]))),
    )
    const fromJson = importInspectAIRoot({ ...header, samples: [samples[1], samples[0], samples[2]] })
    const shape = (t: Transcript) => [
      t.title,
      t.messages.map((m) => m.content),
      (t.sidechains ?? []).map((c) => [c.title, c.messages.map((m) => m.content)]),
    ]
    expect(shape(fromZip)).toEqual([
      'demo_task: sample 2 (epoch 1)',
      ['question 2', 'answer 2'],
      [
        ['sample 10 (epoch 1)', ['question 10', 'answer 10']],
        ['sample 1 (epoch 2)', ['question 1', 'answer 1']],
      ],
    ])
    expect(shape(fromJson)).toEqual(shape(fromZip))
  })

  it('a log still being written (only _journal/start.json) imports its samples and says so', () => {
    const t = importedEval(
      evalZip(
        {
          '_journal/start.json': { version: 2, eval: { task: 'live' }, plan: {} },
          'samples/1_epoch_1.json': { id: 1, epoch: 1, messages: [{ role: 'user', content: 'q' }] },
        },
        false,
      ),
    )
    expect(t.title).toBe('live')
    expect(t.messages).toHaveLength(1)
    expect(t.warnings).toEqual([
      'no header.json: the log is unfinished (still running or interrupted); ' +
        'the samples written so far are imported',
    ])
  })

  it('a sample entry with invalid JSON is skipped with a warning naming it', () => {
    const t = importedEval(
      evalZip({
        'samples/1_epoch_1.json': strToU8('{"id": 1, "messages": [\n  oops'),
        'samples/2_epoch_1.json': { id: 2, epoch: 1, messages: [{ role: 'user', content: 'q' }] },
      }),
    )
    expect(t.title).toBe('demo_task')
    expect(t.warnings).toHaveLength(1)
    expect(t.warnings[0]).toMatch(
      /^samples\/1_epoch_1\.json: invalid JSON at line 2, column 3: .+; sample skipped$/,
    )
  })

  it('a sample entry whose compressed bytes are damaged is skipped with a warning naming it; the others import', () => {
    const long = { id: 2, epoch: 1, messages: [{ role: 'user', content: 'padding '.repeat(400) }] }
    const bytes = evalZip({
      'samples/1_epoch_1.json': { id: 1, epoch: 1, messages: [{ role: 'user', content: 'q' }] },
      'samples/2_epoch_1.json': long,
    })
    // The entry's data starts after its local header (30 bytes, the name, the extra field);
    // 0xff opens a deflate block of the reserved type 3, which no inflater accepts.
    const name = strToU8('samples/2_epoch_1.json')
    const at = bytes.findIndex((_, i) => name.every((b, j) => bytes[i + j] === b))
    const header = at - 30
    const extra = (bytes[header + 28] as number) | ((bytes[header + 29] as number) << 8)
    bytes[at + name.length + extra] = 0xff
    const t = importedEval(bytes)
    expect(t.messages.map((m) => m.content)).toEqual(['q'])
    expect(t.sidechains).toBeUndefined()
    expect(t.warnings).toHaveLength(1)
    expect(t.warnings[0]).toMatch(/^samples\/2_epoch_1\.json: the entry cannot be decompressed \(.+\); sample skipped$/)
  })

  it('a sample entry declaring more than 256 MB (a zip bomb) is skipped unread, with its size; one nested too deep says so', () => {
    const bytes = evalZip({
      'samples/1_epoch_1.json': { id: 1, epoch: 1, messages: [{ role: 'user', content: 'q' }] },
      'samples/2_epoch_1.json': { id: 2, epoch: 1, messages: [{ role: 'user', content: 'r' }] },
      'samples/3_epoch_1.json': strToU8(`{"id":3,"epoch":1,"messages":[],"x":${'['.repeat(1200)}${']'.repeat(1200)}}`),
    })
    // The central directory's uncompressed size (offset 24 of its file header) of sample 2 says
    // 700 MiB, as a few hundred KB of deflated spaces would.
    const name = strToU8('samples/2_epoch_1.json')
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    for (let i = 0; i + 46 < bytes.length; i++) {
      if (view.getUint32(i, true) !== 0x02014b50) continue
      const nameAt = i + 46
      if (name.every((b, j) => bytes[nameAt + j] === b)) view.setUint32(i + 24, 700 * 1024 * 1024, true)
    }
    const t = importedEval(bytes)
    expect(t.messages.map((m) => m.content)).toEqual(['q'])
    expect(t.warnings).toEqual([
      'samples/2_epoch_1.json is 700 MB uncompressed; the limit for one entry is 256 MB; sample skipped',
      'samples/3_epoch_1.json: nests 1,201 levels deep at x[0][0][0][0][0][0][0]…; the limit is 1,000; sample skipped',
    ])
  })

  it('errors name the entry or the field: no samples, chunked samples, a header not an object', () => {
    const error = (bytes: Uint8Array) => {
      const r = importBytes(bytes)
      if (r.ok) throw new Error('expected an import error')
      return r.error
    }
    expect(error(evalZip({ 'summaries.json': [] }))).toEqual({
      message: 'the .eval log has no samples (no samples/<id>_epoch_<n>.json entry)',
      field: 'samples',
    })
    expect(error(evalZip({ 'samples/1_epoch_1/sample.json': {} })).message).toMatch(
      /stored in chunks .*\.eval2 layout/,
    )
    expect(error(evalZip({ 'header.json': [1, 2] }, false))).toEqual({
      message: 'header.json is not a JSON object',
      field: 'header.json',
    })
    expect(error(evalZip({ 'samples/1_epoch_1.json': { id: 1, messages: 'x' } }))).toEqual({
      message: 'samples/1_epoch_1.json: messages is not an array',
      field: 'samples/1_epoch_1.json: messages',
    })
  })

  it('entries compressed with Zstandard (INSPECT_USE_ZSTD) are a clear error, not a crash', () => {
    const bytes = evalZip({ 'samples/1_epoch_1.json': { id: 1, messages: [] } })
    // Mark every entry as method 93 in its central directory record (offset 10 of PK\x01\x02).
    for (let i = 0; i + 4 <= bytes.length; i++) {
      if (bytes[i] === 0x50 && bytes[i + 1] === 0x4b && bytes[i + 2] === 1 && bytes[i + 3] === 2) {
        bytes[i + 10] = 93
        bytes[i + 11] = 0
      }
    }
    const r = importBytes(bytes)
    expect(r).toEqual({
      ok: false,
      error: {
        message:
          'header.json is compressed with Zstandard, which cannot be read here ' +
          '(only stored and deflate entries)',
        field: 'header.json',
      },
    })
  })
})

describe('Inspect AI server-side tool use and tool errors', () => {
  /*
   * test/fixtures/formats/inspect-ai-server-tool-use.json, counted from the file: u1 (user); a1
   * with content [text, tool_use web_search ws_123 (result "Kein Rückruf gefunden."), text] and
   * tool_calls [call_b]: split at the tool use into an assistant message (text + the hosted call
   * ws_123), its tool message, and an assistant message (the second text + call_b); t answers
   * call_b with `error` (content ''); a2 (assistant). Roles: user 1, assistant 3 + 1, tool 2;
   * calls 2, results 2, errors 1.
   */
  const fixture = readFileSync(
    new URL('../../../test/fixtures/formats/inspect-ai-server-tool-use.json', import.meta.url),
    'utf8',
  )

  it('a tool_use part is a hosted call with its result right after; an error is its text', () => {
    const r = importBytes(new TextEncoder().encode(fixture), { fileName: 'log.json' })
    if (!r.ok) throw new Error(r.error.message)
    const t = r.transcript
    expect(t.format).toBe('inspect-ai')
    expect(counts(t)).toEqual({
      byRole: { system: 0, user: 1, assistant: 3, tool: 2 },
      calls: 2,
      results: 2,
      errors: 1,
    })
    const [, first, result, second, error, last] = t.messages
    expect(first).toMatchObject({ id: 'a1', role: 'assistant', content: 'Ich suche nach Rückrufen.' })
    expect(first?.toolCalls).toEqual([
      {
        id: 'ws_123',
        name: 'web_search',
        arguments: '{"query": "WK-200 Rückruf"}',
        native: {
          kind: 'tool_use',
          hosted: true,
          raw: {
            type: 'tool_use',
            tool_type: 'web_search',
            id: 'ws_123',
            name: 'web_search',
            arguments: '{"query": "WK-200 Rückruf"}',
            result: 'Kein Rückruf gefunden.',
          },
        },
      },
    ])
    expect(result).toMatchObject({
      role: 'tool',
      toolCallId: 'ws_123',
      toolName: 'web_search',
      content: 'Kein Rückruf gefunden.',
    })
    expect(result?.isError).toBeUndefined()
    expect(second).toMatchObject({
      role: 'assistant',
      content: 'Ich prüfe noch die Reservierungen.',
      toolCalls: [{ id: 'call_b', name: 'reservations', arguments: '{"model":"WK-200"}' }],
    })
    expect(error).toMatchObject({
      id: 't',
      role: 'tool',
      toolCallId: 'call_b',
      isError: true,
      content: 'Error: reservations API: 403 Forbidden',
    })
    expect(last).toMatchObject({ id: 'a2', role: 'assistant' })
    expect(checkValidity(t.messages)).toEqual([])
  })

  it('a tool_use with an error and no result is an error result carrying the error', () => {
    const t = importInspectAIRoot(
      log({
        messages: [
          { role: 'user', content: 'q' },
          {
            role: 'assistant',
            content: [
              {
                type: 'tool_use',
                tool_type: 'mcp_call',
                id: 'mcp_1',
                name: 'lookup',
                context: 'recalls-server',
                arguments: '{}',
                result: '',
                error: 'server unavailable',
              },
            ],
          },
        ],
      }),
    )
    expect(t.messages.map((m) => [m.role, m.content, m.isError])).toEqual([
      ['user', 'q', undefined],
      ['assistant', '', undefined],
      ['tool', 'server unavailable', true],
    ])
  })
})

it('meets the registry contract on its bundled sample', () => {
  expect(
    registryContractViolations(inspectAIImporter, sampleText('inspect-ai-eval.json')),
  ).toEqual([])
})

#!/usr/bin/env -S npx tsx
/**
 * Writes test/fixtures/formats/usage-claude-code-calibration.jsonl: a short Claude Code 2.1.37
 * session (the on-disk shape of docs/formats.md §4.4: one record per content block, the records
 * of one API response sharing its `message.id` and `usage`) whose every response records the
 * context it was sent as exactly 12,000 + 1.25 × our o200k_base count of that context (the tool
 * schemas and the messages before the response, counted by the engine's own walk with raw
 * counts) + the reply priming, which a run adds unscaled. A calibration fitted to it is overhead 12,000, ratio 1.25 (up to the rounding
 * of each recorded figure to whole tokens). The context is split over `input_tokens`,
 * `cache_creation_input_tokens` and `cache_read_input_tokens` as Claude Code records it. All
 * content is invented. Rerun after editing the script below:
 *   npx tsx scripts/gen-calibration-fixture.mts
 */
import { writeFileSync } from 'node:fs'
import { importTranscript } from '../src/engine/formats/index'
import { loadCounter, REPLY_PRIMING_TOKENS } from '../src/engine/tokens/count'
import { contextWalk } from '../src/engine/analysis/recorded'
import { transcriptCounts } from '../src/engine/usage/calibration'
import { RAW_COUNTS } from '../src/engine/usage/calibration-terms'
import type { Transcript } from '../src/engine/model'

/** The raw context before each message, through the recorded compactions, as a run counts it. */
const rawWalk = (t: Transcript) => {
  const counts = transcriptCounts(t, counter, RAW_COUNTS)
  return contextWalk(t, counts.message, counts.fixed)
}

const OUT = new URL('../test/fixtures/formats/usage-claude-code-calibration.jsonl', import.meta.url)

/** The agent's context per token of ours and what every request carries beyond the file. */
const OVERHEAD = 12_000
const RATIO = 1.25

const base = {
  isSidechain: false,
  userType: 'external',
  cwd: '/home/dev/invoices',
  sessionId: '3c9e1f7a-5b2d-4e8c-a6f0-7d1b2c3e4f5a',
  version: '2.1.37',
  gitBranch: 'fix-rounding',
}

const SOURCE = `import { Line } from './line'

/** The invoice total in cents: each line's quantity × unit price, then tax per line. */
export function invoiceTotal(lines: Line[], taxRate: number): number {
  let total = 0
  for (const line of lines) {
    const net = line.quantity * line.unitPrice
    total += Math.round(net + net * taxRate)
  }
  return total
}

/** The tax of one line in cents, rounded half away from zero. */
export function lineTax(line: Line, taxRate: number): number {
  const net = line.quantity * line.unitPrice
  return Math.sign(net) * Math.round(Math.abs(net) * taxRate)
}
`

const TEST_OUTPUT = ` FAIL  src/total.test.ts > invoiceTotal > rounds the tax once per invoice
AssertionError: expected 10_763 to be 10_762
 ❯ src/total.test.ts:18:41
     16|     const lines = [{ quantity: 3, unitPrice: 1_199 }, { quantity: 7, unitPrice: 899 }]
     17|     // 3 × 11.99 + 7 × 8.99 = 98.90; tax 8.825% = 8.727… → 8.73; total 107.63 → 10,762 cents
     18|     expect(invoiceTotal(lines, 0.08825)).toBe(10_762)
       |                                         ^
     19|   })

 Test Files  1 failed (1)
      Tests  1 failed | 11 passed (12)`

const GREP_OUTPUT = `src/total.ts:8:    total += Math.round(net + net * taxRate)
src/total.ts:15:  return Math.sign(net) * Math.round(Math.abs(net) * taxRate)
src/receipt.ts:22:  const tax = lines.reduce((sum, l) => sum + lineTax(l, rate), 0)
src/receipt.ts:23:  return { net, tax, gross: net + tax }`

const PASS_OUTPUT = ` ✓ src/total.test.ts (12 tests) 9ms
 ✓ src/receipt.test.ts (5 tests) 4ms

 Test Files  2 passed (2)
      Tests  17 passed (17)`

/** One API response: its content blocks (one record each) and, for a tool call, the result. */
type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown>; result: string }
type Step = { user: string } | { response: Block[] }

const STEPS: Step[] = [
  { user: 'The invoice total test fails by one cent (src/total.test.ts). Find out why and fix it without changing the receipt output.' },
  {
    response: [
      { type: 'text', text: 'I will run the failing test and read the total first.' },
      { type: 'tool_use', id: 'toolu_01Calib01', name: 'Bash', input: { command: 'npx vitest run src/total.test.ts', description: 'Run the failing test' }, result: TEST_OUTPUT },
      { type: 'tool_use', id: 'toolu_01Calib02', name: 'Read', input: { file_path: '/home/dev/invoices/src/total.ts' }, result: SOURCE },
    ],
  },
  {
    response: [
      { type: 'text', text: 'The total rounds the tax on every line; the test expects one rounding for the whole invoice. Who else relies on per-line tax?' },
      { type: 'tool_use', id: 'toolu_01Calib03', name: 'Grep', input: { pattern: 'Math.round|lineTax', path: 'src' }, result: GREP_OUTPUT },
    ],
  },
  {
    response: [
      {
        type: 'tool_use',
        id: 'toolu_01Calib04',
        name: 'Edit',
        input: {
          file_path: '/home/dev/invoices/src/total.ts',
          old_string: '  let total = 0\n  for (const line of lines) {\n    const net = line.quantity * line.unitPrice\n    total += Math.round(net + net * taxRate)\n  }\n  return total',
          new_string: '  const net = lines.reduce((sum, line) => sum + line.quantity * line.unitPrice, 0)\n  return Math.round(net + net * taxRate)',
        },
        result: 'The file /home/dev/invoices/src/total.ts has been updated.',
      },
    ],
  },
  {
    response: [
      { type: 'tool_use', id: 'toolu_01Calib05', name: 'Bash', input: { command: 'npx vitest run src/total.test.ts src/receipt.test.ts', description: 'Run both test files' }, result: PASS_OUTPUT },
    ],
  },
  { response: [{ type: 'text', text: 'Fixed: invoiceTotal now sums the net of all lines and rounds the tax once (10,762 cents). The receipt keeps its per-line tax through lineTax, so its output is unchanged; both test files pass.' }] },
  { user: 'Does lineTax still round half away from zero for refunds (negative quantities)?' },
  { response: [{ type: 'text', text: 'Yes: lineTax takes the sign of the net and rounds its absolute value, so −2 × 4.99 at 8.825% is −0.88 either way. The change to invoiceTotal does not touch it.' }] },
  { user: 'Good, commit it as "Round invoice tax once per invoice".' },
  {
    response: [
      { type: 'tool_use', id: 'toolu_01Calib06', name: 'Bash', input: { command: 'git commit -am "Round invoice tax once per invoice"', description: 'Commit the fix' }, result: '[fix-rounding 4e1c2d9] Round invoice tax once per invoice\n 1 file changed, 2 insertions(+), 5 deletions(-)' },
    ],
  },
  { response: [{ type: 'text', text: 'Committed as 4e1c2d9 on fix-rounding.' }] },
]

/** The JSONL of `STEPS`, each response's usage from `contextOf(response number)`. */
function session(contextOf: (response: number) => number): string {
  const lines: string[] = []
  let parent: string | null = null
  let n = 0
  let response = 0
  const push = (record: Record<string, unknown>) => {
    const uuid = `5d0a${String(++n).padStart(4, '0')}-2c7e-4f1a-9b3d-6e8f0a1b2c3d`
    const timestamp = new Date(Date.UTC(2026, 2, 9, 14, 0, 0) + n * 7_000).toISOString()
    lines.push(JSON.stringify({ parentUuid: parent, ...base, ...record, uuid, timestamp }))
    parent = uuid
  }
  for (const step of STEPS) {
    if ('user' in step) {
      push({ type: 'user', message: { role: 'user', content: step.user } })
      continue
    }
    response++
    const context = contextOf(response)
    // As Claude Code records it: most of the context read from the cache, the newest part written to it.
    const input = 3 + (response % 4)
    const creation = Math.min(context - input, 400 + 37 * response)
    const usage = {
      input_tokens: input,
      cache_creation_input_tokens: creation,
      cache_read_input_tokens: context - input - creation,
      cache_creation: { ephemeral_5m_input_tokens: creation, ephemeral_1h_input_tokens: 0 },
      output_tokens: 60 + 11 * response,
      service_tier: 'standard',
    }
    const id = `msg_01CalibFixture${String(response).padStart(4, '0')}`
    const results: Block[] = []
    step.response.forEach((block, i) => {
      const last = i === step.response.length - 1
      const content = block.type === 'text' ? { type: 'text', text: block.text } : { type: 'tool_use', id: block.id, name: block.name, input: block.input }
      push({
        type: 'assistant',
        message: {
          model: 'claude-sonnet-4-5-20250929',
          id,
          type: 'message',
          role: 'assistant',
          content: [content],
          stop_reason: last ? (block.type === 'tool_use' ? 'tool_use' : 'end_turn') : null,
          stop_sequence: null,
          usage,
        },
        requestId: `req_011CalibFixture${String(response).padStart(4, '0')}`,
      })
      if (block.type === 'tool_use') results.push(block)
    })
    for (const block of results) {
      if (block.type !== 'tool_use') continue
      push({
        type: 'user',
        message: { role: 'user', content: [{ tool_use_id: block.id, type: 'tool_result', content: block.result, is_error: false }] },
        toolUseResult: { stdout: block.result, stderr: '', interrupted: false, isImage: false },
      })
    }
  }
  return `${lines.join('\n')}\n`
}

const counter = await loadCounter('o200k_base')
// First pass: where each response's usage lands (its first message); usage never changes the messages.
const draft = importTranscript(session(() => 1), { fileName: 'draft.jsonl' })
if (!draft.ok) throw new Error(draft.error.message)
const walk = rawWalk(draft.transcript)
const usage = draft.transcript.usage ?? []
const ours = (response: number) => walk.at[(usage[response - 1] as { atIndex: number }).atIndex] as number
// The reply priming is added unscaled (calibration.ts `transcriptCounts`): it is no part of what the ratio scales.
const text = session((response) => Math.round(OVERHEAD + RATIO * (ours(response) - REPLY_PRIMING_TOKENS) + REPLY_PRIMING_TOKENS))
writeFileSync(OUT, text)

const final = importTranscript(text, { fileName: 'usage-claude-code-calibration.jsonl' })
if (!final.ok) throw new Error(final.error.message)
const rawBefore = rawWalk(final.transcript)
console.log(
  `${usage.length} responses; our context per response: ${usage.map((_, i) => ours(i + 1)).join(', ')}; ` +
    `recorded: ${(final.transcript.usage ?? []).map((u) => u.context).join(', ')}; raw context of all ${final.transcript.messages.length} messages: ${rawBefore.at[final.transcript.messages.length]}`,
)

#!/usr/bin/env node
/**
 * Writes test/fixtures/formats/inspect-ai-sample.eval: a small Inspect AI `.eval` log (a zip, as
 * Inspect's EvalRecorder writes it: `_journal/start.json`, one `samples/<id>_epoch_<n>.json` per
 * sample in the order they finished, `_journal/summaries/1.json`, `summaries.json`,
 * `header.json`; deflate level 5). All content is invented (the coding scenario of
 * docs/formats.md §5). The tests count from the JSON below; rerun after editing it:
 *   node scripts/gen-inspect-eval-fixture.mjs
 */
import { writeFileSync } from 'node:fs'
import { strToU8, zipSync } from 'fflate'

const OUT = new URL('../test/fixtures/formats/inspect-ai-sample.eval', import.meta.url)

const evalSpec = {
  eval_id: 'fx4Qk2nT9vLm8Rw3',
  run_id: 'rU7pZx1cH5bN0sYe',
  created: '2025-06-24T09:12:04+00:00',
  task: 'fix_rates',
  task_version: 0,
  dataset: { name: 'quote_bugs', samples: 2, sample_ids: [1, 2] },
  model: 'anthropic/claude-sonnet-4-5',
  config: { epochs: 1 },
}
const plan = { name: 'plan', steps: [{ solver: 'basic_agent', params: {} }], config: {} }

const RATES_PY = `"""Zone rates for quotes."""

ZONE_RATES = {1: 4.10, 2: 4.85, 8: 9.95}


def rate_for(zone: int, weight_kg: float) -> float:
    base = ZONE_RATES[zone]
    return round(base * weight_kg, 1)  # rounds to 0.1, quotes need cents
`

/** Sample 1: parallel calls, an attachment, a timed-out call, a recorded compaction. */
const sample1 = {
  id: 1,
  epoch: 1,
  input: 'Fix the rounding bug in src/quote/rates.py for order ORD-58213 (postal code 94107).',
  target: 'round to cents',
  messages: [
    { id: 'sys1', role: 'system', content: 'You are a careful coding agent. Use the tools.', source: 'input' },
    {
      id: 'u1',
      role: 'user',
      content:
        'Fix the rounding bug in src/quote/rates.py for order ORD-58213 (postal code 94107). ' +
        "Don't change quote_for() in src/quote/api.py.",
      source: 'input',
    },
    {
      id: 'a1',
      role: 'assistant',
      source: 'generate',
      model: 'claude-sonnet-4-5',
      content: [
        { type: 'reasoning', reasoning: 'List the package, then read rates.py.', signature: 'sig-a1', redacted: false },
        { type: 'text', text: 'Looking at the package first.' },
      ],
      tool_calls: [
        { id: 'toolu_01', function: 'bash', arguments: { cmd: 'ls src/quote' } },
        { id: 'toolu_02', function: 'text_editor', arguments: { command: 'view', path: 'src/quote/rates.py' } },
      ],
    },
    { id: 't1', role: 'tool', content: 'api.py\nrates.py\n__init__.py', tool_call_id: 'toolu_01', function: 'bash' },
    { id: 't2', role: 'tool', content: 'attachment://5f1c9a7e2b', tool_call_id: 'toolu_02', function: 'text_editor' },
    {
      id: 'a2',
      role: 'assistant',
      source: 'generate',
      content: 'round(…, 1) drops the cents. Running the tests before the change.',
      tool_calls: [{ id: 'toolu_03', function: 'bash', arguments: { cmd: 'pytest tests/test_rates.py' } }],
    },
    {
      id: 't3',
      role: 'tool',
      content: '',
      tool_call_id: 'toolu_03',
      function: 'bash',
      error: { type: 'timeout', message: 'Command timed out before completing.' },
    },
    {
      id: 'a3',
      role: 'assistant',
      source: 'generate',
      content: 'Timed out; running only the rounding tests.',
      tool_calls: [{ id: 'toolu_04', function: 'bash', arguments: { cmd: 'pytest tests/test_rates.py -k rounding' } }],
    },
    { id: 't4', role: 'tool', content: '1 passed in 0.12s', tool_call_id: 'toolu_04', function: 'bash' },
    {
      id: 'a4',
      role: 'assistant',
      source: 'generate',
      content: 'Fixed: rate_for() now rounds to cents (2 places); quote_for() is unchanged.',
    },
  ],
  output: { model: 'claude-sonnet-4-5', choices: [{ message: { id: 'a4', role: 'assistant', content: 'Fixed.' }, stop_reason: 'stop' }] },
  scores: { includes: { value: 'C', answer: 'round to cents' } },
  metadata: {},
  store: {},
  events: [
    { event: 'sample_init', sample: { id: 1 } },
    { event: 'model', input: [{ id: 'sys1' }, { id: 'u1' }], output: { choices: [{ message: { id: 'a1' } }] } },
    { event: 'tool', id: 'toolu_01', function: 'bash', message_id: 't1' },
    { event: 'tool', id: 'toolu_02', function: 'text_editor', message_id: 't2' },
    { event: 'compaction', type: 'summary', tokens_before: 18220, tokens_after: 4105, source: 'inspect' },
    { event: 'model', input: [{ id: 'sys1' }, { id: 'u1' }], output: { choices: [{ message: { id: 'a2' } }] } },
    { event: 'tool', id: 'toolu_03', function: 'bash', message_id: 't3' },
    { event: 'model', input: [{ id: 'u1' }], output: { choices: [{ message: { id: 'a3' } }] } },
    { event: 'tool', id: 'toolu_04', function: 'bash', message_id: 't4' },
    { event: 'model', input: [{ id: 'u1' }], output: { choices: [{ message: { id: 'a4' } }] } },
  ],
  attachments: { '5f1c9a7e2b': RATES_PY },
  model_usage: { 'anthropic/claude-sonnet-4-5': { input_tokens: 9120, output_tokens: 611 } },
}

/** Sample 2: a call the user interrupts before its result (a missing tool result). */
const sample2 = {
  id: 2,
  epoch: 1,
  input: 'What does quote_for() return for postal code 94107?',
  target: 'a Quote',
  messages: [
    { id: 'u1', role: 'user', content: 'What does quote_for() return for postal code 94107?', source: 'input' },
    {
      id: 'a1',
      role: 'assistant',
      source: 'generate',
      content: '',
      tool_calls: [{ id: 'toolu_11', function: 'bash', arguments: { cmd: 'grep -n "def quote_for" -A3 src/quote/api.py' } }],
    },
    {
      id: 't1',
      role: 'tool',
      content: '12:def quote_for(order_id: str, postal_code: str) -> Quote:',
      tool_call_id: 'toolu_11',
      function: 'bash',
    },
    {
      id: 'a2',
      role: 'assistant',
      source: 'generate',
      content: 'Reading the Quote class too.',
      tool_calls: [{ id: 'toolu_12', function: 'bash', arguments: { cmd: 'cat src/quote/models.py' } }],
    },
    { id: 'u2', role: 'user', content: 'Stop there and answer from what you have.' },
    { id: 'a3', role: 'assistant', source: 'generate', content: 'It returns a Quote for the order and postal code.' },
  ],
  output: { model: 'claude-sonnet-4-5', choices: [{ message: { id: 'a3', role: 'assistant', content: 'It returns a Quote.' } }] },
  scores: { includes: { value: 'C', answer: 'a Quote' } },
  metadata: {},
  store: {},
  events: [],
  attachments: {},
}

const summary = (s) => ({ id: s.id, epoch: s.epoch, input: s.input, target: s.target, scores: s.scores })
const json = (value) => strToU8(JSON.stringify(value, null, 2))
const header = {
  version: 2,
  status: 'success',
  eval: evalSpec,
  plan,
  results: { total_samples: 2, completed_samples: 2, scores: [] },
  stats: { started_at: '2025-06-24T09:12:04+00:00', completed_at: '2025-06-24T09:14:40+00:00' },
}

// Entry order as the recorder writes them; sample 2 finished first.
const mtime = new Date(2025, 5, 24, 9, 14, 40)
const entries = {
  '_journal/start.json': json({ version: 2, eval: evalSpec, plan }),
  'samples/2_epoch_1.json': json(sample2),
  'samples/1_epoch_1.json': json(sample1),
  '_journal/summaries/1.json': json([summary(sample2), summary(sample1)]),
  'summaries.json': json([summary(sample2), summary(sample1)]),
  'header.json': json(header),
}
writeFileSync(OUT, zipSync(entries, { level: 5, mtime }))
console.log(`wrote ${OUT.pathname}`)

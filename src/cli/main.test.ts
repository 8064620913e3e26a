import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startLlmServer, type LlmServer } from '../../test/llm-server'
import { SAMPLE_FILES } from '../../test/sample-scenarios'
import { importTranscript } from '../engine/formats/index'
import { ALL_PARAMS } from '../engine/stages/definitions'
import { main } from './main'
import { runCli } from '../../test/cli'

const SAMPLES = join(__dirname, '../../public/samples')

/** Temp folders of this file's tests, removed when they are done. */
const tempDirs: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'ci-cli-'))
  tempDirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true })
})

describe('cli compact', () => {
  it('a stage that stops with an error exits 1 with the error on stderr (a reserve not below the window)', async () => {
    const { code, stdout, stderr } = await runCli(['compact', join(SAMPLES, 'openai-chat.json'), '--trigger-reserve=250000'])
    expect(code).toBe(1)
    expect(stdout).toMatch(/^passes {3}0$/m)
    expect(stderr).toBe(
      'error: summarize: the token trigger is at 0 tokens (200,000 window − 250,000 reserve): every check would compact; use a larger window or a smaller reserve\n',
    )
  })

  it('--stages dedupe --json: repeated catalog page becomes back-references, and fates/origins say so', async () => {
    const { code, stdout, stderr } = await runCli(['compact', join(SAMPLES, 'openai-chat.json'), '--stages', 'dedupe', '--json'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const out = JSON.parse(stdout)
    expect(out.format).toBe('openai-chat')
    const backRefs = out.after.messages.filter(
      (m: { content: unknown }) => typeof m.content === 'string' && m.content.startsWith('[repeated tool output — byte-identical'),
    )
    // The sample repeats the catalog page three times (design/formats.md §5): two repeats.
    expect(backRefs.length).toBe(2)
    for (const m of backRefs) {
      expect(out.origins[m.id].kind).toBe('back-reference')
      expect(out.fates[m.id].kind).toBe('back-referenced')
      const first = out.fates[m.id].firstId
      expect(out.fates[first].kind).toBe('kept')
    }
    expect(out.after.tokens).toBeLessThan(out.before.tokens)
    expect(out.checks.after).toEqual([])
    expect(out.stages.map((s: { stage: string }) => s.stage)).toEqual(['dedupe'])
  })

  it('prints a human report without --json', async () => {
    // Raw counts: the seeds' numbers on our own count (calibrated, the sample's 16,000-token
    // overhead keeps the prune target out of reach and no back-reference is left).
    const { code, stdout } = await runCli(['compact', join(SAMPLES, 'claude-code.jsonl'), '--calibration', 'off'])
    expect(code).toBe(0)
    expect(stdout).toMatch(/^.*claude-code\.jsonl: claude-code/m)
    expect(stdout).toMatch(/^tokens +\d+ → \d+/m)
    expect(stdout).toMatch(/^ +raw o200k_base counts$/m)
    expect(stdout).toMatch(/^validity /m)
    // Messages are named by their Before position, as the page's columns name them, never by id:
    // the sample's repeated Bash output (Before #33) stands for its first occurrence (#10).
    const text = readFileSync(join(SAMPLES, 'claude-code.jsonl'), 'utf8')
    const ids = text.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { uuid?: string }).uuid).filter(Boolean) as string[]
    for (const line of stdout.split('\n').filter((l) => /^(warning| {2}[a-z-]+): /.test(l))) {
      for (const id of ids) expect(line).not.toContain(id)
    }
    expect(stdout).toMatch(/^warning: summarize: back-reference #33 now stands alone: its first occurrence #10 is no longer in context/m)
  })

  it('exits 1 with one line naming the line for invalid JSON', async () => {
    const dir = tempDir()
    const file = join(dir, 'bad.json')
    writeFileSync(file, '{"messages": [\n  {"role": "user", "content": "hi"},\n  oops\n]}')
    const { code, stderr, stdout } = await runCli(['compact', file])
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr.trim().split('\n')).toHaveLength(1)
    expect(stderr).toMatch(/line 3/)
    // The location is said once, not once by the CLI and again by the engine's message.
    expect(stderr.match(/line 3/g)).toHaveLength(1)
    expect(stderr).toMatch(/^error: .*bad\.json: invalid JSON at line 3, column 3: \S/)
  })

  it('says a cut-off JSON file ends unexpectedly at its last line, once', async () => {
    const dir = tempDir()
    const file = join(dir, 'cut.json')
    writeFileSync(file, '{"messages": [\n  {"role": "user", "content": "hi"},\n  {"role": "assistant", "con\n')
    const { code, stderr } = await runCli(['compact', file])
    expect(code).toBe(1)
    expect(stderr).toBe(`error: ${file}: the file ends unexpectedly at line 3 — is it truncated?\n`)
  })

  it('exits 1 for a missing file and for an empty file', async () => {
    expect((await runCli(['compact', '/nonexistent/x.json'])).code).toBe(1)
    const dir = tempDir()
    const file = join(dir, 'empty.json')
    writeFileSync(file, '')
    const r = await runCli(['compact', file])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/empty/)
  })

  it('exits 2 on bad usage', async () => {
    expect((await runCli([])).code).toBe(2)
    expect((await runCli(['frobnicate'])).code).toBe(2)
    expect((await runCli(['compact'])).code).toBe(2)
    expect((await runCli(['compact', 'x.json', '--keep-last', 'ten'])).code).toBe(2)
    expect((await runCli(['compact', 'x.json', '--stages', 'nope'])).code).toBe(2)
    expect((await runCli(['compact', 'x.json', '--summarizer', 'anthropic'])).code).toBe(2)
  })

  it('values the seeds reject are usage errors (exit 2), not a stage error in an exit-0 report', async () => {
    const file = join(SAMPLES, 'openai-chat.json')
    const steps = await runCli(['compact', file, '--keep-steps', '0'])
    expect(steps.code).toBe(2)
    expect(steps.stderr).toContain(
      'keep_steps must be at least 1: the model has not acted on the newest results yet',
    )
    expect((await runCli(['compact', file, '--target=-5'])).code).toBe(2)
    expect((await runCli(['compact', file, '--stages='])).code).toBe(2)
    const negative = await runCli(['compact', file, '--keep-last', '-3'])
    expect(negative.code).toBe(2)
    expect(negative.stderr).toContain('--flag=value')
  })

  it('every stage param with a CLI flag in its definition is a flag, listed in the usage with its stage', async () => {
    const usage = (await runCli(['--help'])).stdout
    const flagged = ALL_PARAMS.filter(({ param }) => param.cliFlag !== undefined)
    expect(flagged.map(({ param }) => param.cliFlag)).toEqual(
      expect.arrayContaining(['keep-last', 'compact-after', 'target', 'keep-steps', 'slim-keep', 'max-facts', 'exclude-tools']),
    )
    // A count, names or choice flag shows its value's placeholder; a flag param (on/off) has none.
    for (const { stage, param } of flagged) {
      const arg = param.type === 'flag' ? '' : ' \\S+'
      // A synopsis wider than the option column puts the description on the next line.
      expect(usage).toMatch(new RegExp(`^  --${param.cliFlag}${arg}(?: +|\\n +)${stage}: `, 'm'))
    }
    expect(usage).toMatch(/^ {2}--check turn\|request +summarize: when the trigger is checked: /m)
    expect(usage).toMatch(/^ {2}--min-progress +summarize: guard: skip a pass/m)
    expect(usage).toMatch(/^ {2}--keep-last N +summarize: newest messages kept verbatim \(default 20, at least 1\)$/m)
    // A count flag is a number ≥ its definition's min (≥ 0 without one), whichever stage it belongs to;
    // whole unless the param takes fractions (prune's target and min_tokens).
    const file = join(SAMPLES, 'openai-chat.json')
    const negative = await runCli(['compact', file, '--compact-after=-1'])
    expect(negative.code).toBe(2)
    expect(negative.stderr).toMatch(/^error: --compact-after must be at least 1, got -1$/m)
    const zero = await runCli(['compact', file, '--stages', 'slim', '--slim-keep', '0'])
    expect(zero.code).toBe(2)
    expect(zero.stderr).toMatch(/^error: --slim-keep must be at least 1, got 0$/m)
    expect((await runCli(['compact', file, '--clear-at-least=-1'])).stderr).toMatch(/^error: --clear-at-least must not be negative, got -1$/m)
    expect((await runCli(['compact', file, '--target=1.5', '--json'])).code).toBe(0)
    expect((await runCli(['compact', file, '--keep-last=1.5'])).stderr).toMatch(/^error: --keep-last takes a whole number, got "1.5"$/m)
  })

  it('compact --help prints the usage and exits 0', async () => {
    const r = await runCli(['compact', '--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('npm run cli -- compact <file|->')
  })

  it('prints each import warning once, in the report and in --json', async () => {
    const dir = tempDir()
    const file = join(dir, 'bad-lines.jsonl')
    const good = readFileSync(join(SAMPLES, 'claude-code.jsonl'), 'utf8').split('\n')
    // Line 6 of the file becomes unreadable: the import skips it with one warning naming it.
    good.splice(5, 0, '{"type": "user", oops')
    writeFileSync(file, good.join('\n'))
    const json = JSON.parse((await runCli(['compact', file, '--json'])).stdout)
    const named = json.warnings.filter((w: string) => w.includes('line 6'))
    expect(named).toHaveLength(1)
    const report = (await runCli(['compact', file])).stdout
    expect(report.split('\n').filter((l) => l.startsWith('warning:') && l.includes('line 6'))).toHaveLength(1)
  })
})

describe('cli find: verdicts, where a fact is and which pass lost it', () => {
  const chat = join(SAMPLES, 'openai-chat.json')

  it('--json: a surviving fact lists where it is; a fact of the other scenario is never present', async () => {
    const { code, stdout, stderr } = await runCli(['find', chat, 'A-48213-KQ', 'ORD-58213', '--json'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const out = JSON.parse(stdout)
    expect(out.facts.map((f: { query: string; verdict: string }) => [f.query, f.verdict])).toEqual([
      ['A-48213-KQ', 'survives'],
      ['ORD-58213', 'never-present'],
    ])
    // The default pipeline does not summarize this 34-message sample: m1 stays verbatim.
    expect(out.facts[0].where).toContainEqual({ id: 'm1', as: 'verbatim' })
  })

  it('names the pass and stage that lost a fact, in JSON and in text', async () => {
    // keep 2 / compact after 4: the catalog SKU TAL-20BLU-42 is only in m16, and the offline
    // summary keeps at most 40 facts, so the pass that folds m16 loses it.
    const flags = ['--keep-last', '2', '--compact-after', '4']
    const compact = JSON.parse((await runCli(['compact', chat, ...flags, '--json'])).stdout)
    const fate = compact.fates.m16
    expect(fate.kind).toBe('summarized')
    const json = await runCli(['find', chat, 'TAL-20BLU-42', ...flags, '--json'])
    expect(json.code).toBe(0)
    const v = JSON.parse(json.stdout).facts[0]
    expect(v.verdict).toBe('lost')
    expect(v.beforeIds).toEqual(['m16'])
    expect(v.lost).toMatchObject({ beforeId: 'm16', stage: 'summarize', pass: fate.pass })
    expect(v.lost.replacedBy.kind).toBe('summary')
    const text = await runCli(['find', chat, 'TAL-20BLU-42', 'A-48213-KQ', 'zzz-not-here', ...flags])
    expect(text.code).toBe(0)
    // The page's sentence, messages named as its columns name them (#16 = Before message m16).
    const pass = compact.passes.find((p: { stage: string; pass: number }) => p.stage === 'summarize' && p.pass === fate.pass)
    expect(text.stdout).toMatch(
      new RegExp(`^TAL-20BLU-42: lost in pass ${fate.pass} of summarize — replaced by the summary of messages ${pass.from}–${pass.upto - 1}$`, 'm'),
    )
    expect(text.stdout).toMatch(/^A-48213-KQ: survives only in After #\d+ \(summary of pass \d+\)$/m)
    // Under the lost fact: why, the prompt line that carried it (m16 is Before #16) and the summary.
    expect(text.stdout).toMatch(/^ {2}why: it was in the prompt, but the extractive summary kept other lines$/m)
    expect(text.stdout).toMatch(/^ {2}prompt line: \[16\] \w+: .*TAL-20BLU-42/m)
    expect(text.stdout).toMatch(/^ {2}summary: /m)
    expect(text.stdout).toMatch(/^zzz-not-here: never present in the Before$/m)
    // --regex: one pattern, the same verdict.
    const rx = await runCli(['find', chat, 'TAL-20BLU-\\d+', '--regex', ...flags, '--json'])
    expect(JSON.parse(rx.stdout).facts[0]).toMatchObject({ verdict: 'lost', beforeIds: ['m16'] })
  })

  it('find --recorded judges each fact against the agent\'s own compaction, naming it as its record does', async () => {
    const file = join(__dirname, '../../test/fixtures/facts-why/claude-code-auto-compact.jsonl')
    const text = await runCli(['find', file, '80331', 'ORD-4417', '--recorded'])
    expect(text.code).toBe(0)
    // The fixture: 6 messages, then an auto compaction (preTokens 150000) whose summary omits the
    // postal code; after it the summary (After #0), the user's "ship it…" (Before #7 → After #1).
    expect(text.stdout).toMatch(
      /^80331: lost at the agent's compaction 1 \(message 6, auto, 150,000 tokens\) — its summary omits it; asked for at Before #7 \(referred back to\)$/m,
    )
    expect(text.stdout).toMatch(/^ {2}why: it was in the messages the agent summarized, but not in the summary it wrote$/m)
    expect(text.stdout).toMatch(/^ORD-4417: survives in 2 messages after \(Before #8 → After #2, After #0 \(the agent's recorded summary\)\)$/m)
    const json = JSON.parse((await runCli(['find', file, '80331', '--recorded', '--json'])).stdout)
    expect(json.facts[0].lost).toMatchObject({
      stage: 'recorded',
      pass: 1,
      replacedBy: { kind: 'summary', recorded: { atIndex: 6, trigger: 'auto', tokensBefore: 150000 } },
    })
  })

  it('exits 2 without a fact or with a bad regex; 1 for a missing file or --recorded without a recorded compaction', async () => {
    expect((await runCli(['find', chat])).code).toBe(2)
    expect((await runCli(['find', chat, '(', '--regex'])).code).toBe(2)
    expect((await runCli(['find', chat, 'x', '--recorded'])).code).toBe(1)
    expect((await runCli(['find', chat, ''])).code).toBe(2)
    expect((await runCli(['find', join(SAMPLES, 'nope.json'), 'x'])).code).toBe(1)
  })

  it('a usage error prints its one line and where the usage is, not the whole usage', async () => {
    for (const args of [['find', chat, ''], ['find', chat, '([', '--regex'], ['compact', chat, '--bogus']]) {
      const r = await runCli(args)
      expect(r.code).toBe(2)
      const lines = r.stderr.trimEnd().split('\n')
      expect(lines).toHaveLength(2)
      expect(lines[0]).toMatch(/^error: /)
      expect(lines[1]).toBe('see npm run cli -- --help for the usage')
    }
    expect((await runCli(['find', chat, ''])).stderr).toMatch(/^error: an empty <fact> matches everything/)
  })

  it('compact --json includes the facts table and the failure-mode checks', async () => {
    const { code, stdout } = await runCli(['compact', chat, '--keep-last', '2', '--compact-after', '4', '--json'])
    expect(code).toBe(0)
    const out = JSON.parse(stdout)
    expect(out.facts.totals.text).toBe(`${out.facts.totals.survive} of ${out.facts.totals.facts} facts survive`)
    expect(out.facts.passes.length).toBe(out.passes.length)
    const row = out.facts.rows.find((r: { fact: string }) => r.fact === 'A-48213-KQ')
    expect(row.kind).toBe('id')
    // Its state through the passes as runs: from the first pass to the last.
    expect(row.passRuns[0].from).toBe(0)
    expect(row.passRuns.at(-1).to).toBe(out.passes.length - 1)
    expect(Array.isArray(out.failureModes)).toBe(true)
    expect(out.failureModes).toEqual(out.checks.failureModes)
  })

  it('--stages summarize,pin-facts: the pinned block keeps the deadline; the report lists failure modes', async () => {
    const flags = ['--stages', 'summarize,pin-facts', '--keep-last', '2', '--compact-after', '4']
    const found = await runCli(['find', chat, '21 March 2025', ...flags, '--json'])
    const v = JSON.parse(found.stdout).facts[0]
    expect(v.verdict).toBe('survives')
    expect(v.where.map((w: { as: string }) => w.as)).toContain('pinned')
    const report = await runCli(['compact', chat, ...flags])
    expect(report.code).toBe(0)
    expect(report.stdout).toMatch(/^failure modes /m)
  })
})

describe('cli inspect', () => {
  it('--json: format, counts, the recorded compaction and no warnings for the Claude Code sample', async () => {
    const { code, stdout, stderr } = await runCli(['inspect', join(SAMPLES, 'claude-code.jsonl'), '--json'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const out = JSON.parse(stdout)
    // Counted from the file (see formats/claude-code.test.ts): 8 user, 17 assistant responses,
    // 19 tool_use blocks each answered by a tool_result; thinking blocks on lines 4, 22 and 38.
    expect(out).toMatchObject({
      format: 'claude-code',
      title: 'Fix zone 8 quote rounding (ORD-58213, postal code 94107)',
      messages: 44,
      byRole: { system: 0, user: 8, assistant: 17, tool: 19 },
      toolCalls: 19,
      toolResults: 19,
      images: 0,
      thinkingBlocks: 3,
      branches: 0,
      sidechains: [],
      warnings: [],
    })
    expect(out.recordedCompactions).toEqual([
      {
        atIndex: 28,
        atMessageId: 'ba88d541-f539-419a-b313-1425721c476a',
        trigger: 'manual',
        tokensBefore: 24376,
        estimatedTokensBefore: expect.any(Number),
        summaryChars: expect.any(Number),
        source: 'claude-code',
      },
    ])
    // Our calibrated count of the context before the agent's compaction, beside its own.
    expect(Math.abs(out.recordedCompactions[0].estimatedTokensBefore - 24376) / 24376).toBeLessThan(0.1)
    expect(out.agentVersion).toBe('2.0.76')
    // One request per response (message.id), the context read from the file: input + cache
    // creation + cache read of its usage (the same object on each of its records).
    const responses = new Map<string, number>()
    for (const line of readFileSync(join(SAMPLES, 'claude-code.jsonl'), 'utf8').split('\n').filter(Boolean)) {
      const r = JSON.parse(line) as { type?: string; message?: { id?: string; usage?: Record<string, number> } }
      const u = r.message?.usage
      if (r.type === 'assistant' && r.message?.id && u) responses.set(r.message.id, u.input_tokens! + u.cache_creation_input_tokens! + u.cache_read_input_tokens!)
    }
    expect(out.usage.requests.map((q: { recorded: number }) => q.recorded)).toEqual([...responses.values()])
    for (const q of out.usage.requests) expect(q.estimated).toBeGreaterThan(0)
    expect(out.usage.medianError).toBeLessThan(0.1)
    expect(out.usage.label).toMatch(/^calibrated to the file's usage: ±\d+\.\d% \(overhead [\d,]+ tokens, ratio \d\.\d\d/)
  })

  it('counts the screenshot of the OpenAI chat sample as an image', async () => {
    const out = JSON.parse((await runCli(['inspect', join(SAMPLES, 'openai-chat.json'), '--json'])).stdout)
    expect(out.format).toBe('openai-chat')
    expect(out.messages).toBe(34)
    expect(out.images).toBe(1)
    expect(out.recordedCompactions).toEqual([])
  })

  it('reports branches, sidechains and warnings of a forked Claude Code file, in text', async () => {
    const dir = tempDir()
    const file = join(dir, 'forked.jsonl')
    const rec = (uuid: string, parentUuid: string | null, type: string, content: unknown, extra = {}) =>
      JSON.stringify({
        parentUuid,
        isSidechain: false,
        sessionId: 'S',
        type,
        uuid,
        message: type === 'user' ? { role: 'user', content } : { id: `msg-${uuid}`, role: 'assistant', content: [{ type: 'text', text: content }] },
        ...extra,
      })
    writeFileSync(
      file,
      [
        rec('u1', null, 'user', 'start'),
        rec('a1', 'u1', 'assistant', 'first answer'),
        rec('a2', 'u1', 'assistant', 'retried answer'),
        rec('s1', null, 'user', 'sub-task', { isSidechain: true, agentId: 'x1' }),
        rec('s2', 's1', 'assistant', 'sub-answer', { isSidechain: true, agentId: 'x1' }),
        rec('u2', 'a2', 'user', 'thanks'),
      ].join('\n'),
    )
    const { code, stdout } = await runCli(['inspect', file])
    expect(code).toBe(0)
    expect(stdout).toMatch(/^messages +3 \(system 0, user 2, assistant 1, tool 0\)$/m)
    expect(stdout).toMatch(/^branches +1$/m)
    expect(stdout).toMatch(/^sidechains +1$/m)
    // Every conversation, numbered as --conversation takes them, with its session or agent id.
    expect(stdout).toMatch(/^ {2}0 {2}\(untitled\) \[S\]: 3 messages \(open\)$/m)
    expect(stdout).toMatch(/^ {2}1 {2}Sub-agent x1: sub-task \[x1\]: 2 messages$/m)
    const sub = await runCli(['inspect', file, '--conversation', 'x1', '--json'])
    expect(JSON.parse(sub.stdout)).toMatchObject({ title: 'Sub-agent x1: sub-task', messages: 2 })
    expect(stdout).toMatch(/^warning: 1 branch\(es\)/m)
  })

  it('reads an Inspect AI .eval log (a zip): the first sample, the other listed as a sidechain', async () => {
    const file = join(__dirname, '../../test/fixtures/formats/inspect-ai-sample.eval')
    const { code, stdout, stderr } = await runCli(['inspect', file, '--json'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    // Counted from the fixture's JSON (formats/inspect-ai.test.ts): sample 1 has 1 system, 1 user,
    // 4 assistant and 4 tool messages, 4 calls, one compaction event; sample 2 has 6 messages.
    expect(JSON.parse(stdout)).toMatchObject({
      format: 'inspect-ai',
      title: 'fix_rates: sample 1 (epoch 1)',
      messages: 10,
      byRole: { system: 1, user: 1, assistant: 4, tool: 4 },
      toolCalls: 4,
      toolResults: 4,
      sidechains: [{ title: 'sample 2 (epoch 1)', messages: 6 }],
      recordedCompactions: [{ atIndex: 5, atMessageId: 'a2', tokensBefore: 18220, tokensAfter: 4105 }],
    })
    const compact = await runCli(['compact', file, '--json'])
    expect(compact.code).toBe(0)
    expect(JSON.parse(compact.stdout).format).toBe('inspect-ai')
  })

  it('exits 1 on bad input and 2 on bad usage', async () => {
    expect((await runCli(['inspect', '/nonexistent/x.json'])).code).toBe(1)
    expect((await runCli(['inspect'])).code).toBe(2)
    expect((await runCli(['inspect', 'a.json', 'b.json'])).code).toBe(2)
    expect((await runCli(['inspect', 'a.json', '--stages', 'dedupe'])).code).toBe(2)
  })
})

describe('cli compact on every format', () => {
  const files = [...SAMPLE_FILES].sort()

  it('runs on every bundled sample: index.json lists each file of public/samples once', () => {
    expect(files.length).toBeGreaterThan(0)
    expect(new Set(files).size).toBe(files.length)
    expect(readdirSync(SAMPLES).filter((f) => f !== 'index.json').sort()).toEqual(files)
  })

  for (const file of files) {
    it(`${file}: compact --json succeeds with messages on both sides`, async () => {
      const { code, stdout, stderr } = await runCli(['compact', join(SAMPLES, file), '--json'])
      expect(stderr).toBe('')
      expect(code).toBe(0)
      const out = JSON.parse(stdout)
      expect(out.before.messages.length).toBeGreaterThan(0)
      expect(out.after.messages.length).toBeGreaterThan(0)
      expect(out.after.tokens).toBeLessThanOrEqual(out.before.tokens)
    })
  }
})

describe('cli compact --recorded', () => {
  it('adds what the agent kept after its compaction, in the compact JSON shape, and the comparison', async () => {
    const { code, stdout } = await runCli(['compact', join(SAMPLES, 'claude-code.jsonl'), '--recorded', '--json'])
    expect(code).toBe(0)
    const out = JSON.parse(stdout)
    const r = out.recorded
    // The summary (message 28) and the 15 messages after it.
    expect(r.after.messages).toHaveLength(16)
    expect(r.after.messages.map((m: { id: string }) => m.id)).toEqual(
      out.before.messages.slice(28).map((m: { id: string }) => m.id),
    )
    expect(r.origins['ba88d541-f539-419a-b313-1425721c476a']).toMatchObject({ kind: 'summary', stage: 'recorded', pass: 1 })
    expect(r.fates[out.before.messages[0].id]).toMatchObject({ kind: 'summarized', stage: 'recorded' })
    expect(r.checks.after).toEqual([])
    expect(r.comparison.recorded.messages).toBe(16)
    expect(r.comparison.simulated).toEqual({ messages: out.after.messages.length, tokens: out.after.tokens })
  })

  it('is null without a recorded compaction, and says so in the report', async () => {
    const json = JSON.parse((await runCli(['compact', join(SAMPLES, 'openai-chat.json'), '--recorded', '--json'])).stdout)
    expect(json.recorded).toBeNull()
    const text = (await runCli(['compact', join(SAMPLES, 'openai-chat.json'), '--recorded'])).stdout
    expect(text).toMatch(/^recorded no recorded compaction in this transcript$/m)
    const cc = (await runCli(['compact', join(SAMPLES, 'claude-code.jsonl'), '--recorded'])).stdout
    // The report is the agent's compaction (the /compact at message 28 keeps its summary and the 15
    // messages after it); the simulation's figures follow on a line of their own, labelled.
    expect(cc).toMatch(/^recorded what the agent kept, up to the agent's compaction 1 \(message 28, manual, 24,376 tokens\)$/m)
    expect(cc).toMatch(/^messages 44 → 16$/m)
    expect(cc).toMatch(/^passes {3}1 \(the agent's compactions\)\n {2}the agent's compaction 1 \(message 28, manual, 24,376 tokens\): messages 0–27 → summary$/m)
    expect(cc).toMatch(/^simulated messages 44 → \d+, tokens \d+ → \d+, passes \d+, facts \d+ of \d+ facts survive/m)
  })
})

describe('cli export', () => {
  it('prints the After transcript in the chosen shape, which imports back with the same message count', async () => {
    const sample = join(SAMPLES, 'anthropic-messages.json')
    const compact = JSON.parse((await runCli(['compact', sample, '--json', '--stages', 'dedupe'])).stdout)
    for (const to of ['canonical', 'openai-chat', 'anthropic', 'openai-responses']) {
      const { code, stdout } = await runCli(['export', sample, '--to', to, '--stages', 'dedupe'])
      expect(code).toBe(0)
      const r = importTranscript(stdout)
      expect(r.ok).toBe(true)
      if (r.ok) expect(r.transcript.messages).toHaveLength(compact.after.messages.length)
    }
  })

  it('anthropic export of the Anthropic sample warns about nothing; openai-chat says what it cannot carry', async () => {
    const sample = join(SAMPLES, 'anthropic-messages.json')
    expect((await runCli(['export', sample, '--to', 'anthropic'])).stderr).toBe('')
    const chat = await runCli(['export', sample, '--to', 'openai-chat'])
    expect(chat.code).toBe(0)
    expect(chat.stderr).toMatch(/^warning: \d+ thinking signature/m)
  })

  it('exits 2 without --to, with an unknown target or with compact-only flags; 1 for a missing file', async () => {
    expect((await runCli(['export', 'x.json'])).code).toBe(2)
    expect((await runCli(['export', 'x.json', '--to', 'gemini'])).code).toBe(2)
    expect((await runCli(['export', 'x.json', '--to', 'canonical', '--json'])).code).toBe(2)
    expect((await runCli(['export', '--to', 'canonical'])).code).toBe(2)
    expect((await runCli(['export', '/nonexistent/x.json', '--to', 'canonical'])).code).toBe(1)
  })
})

describe('cli compact with an LLM summarizer (local test server)', () => {
  let server: LlmServer
  beforeAll(async () => {
    server = await startLlmServer({ apiKey: 'sk-cli-test' })
  })
  afterAll(() => server.close())
  beforeEach(() => server.reset())

  const sample = join(SAMPLES, 'openai-chat.json')
  const llmArgs = (...extra: string[]) => [
    'compact',
    sample,
    '--stages',
    'summarize',
    '--keep-last',
    '4',
    '--compact-after',
    '8',
    '--summarizer',
    'openai-compatible',
    '--base-url',
    server.openaiBaseUrl,
    '--model',
    'test-model',
    ...extra,
  ]
  const run = async (args: string[], env: Record<string, string | undefined>) => {
    let stdout = ''
    let stderr = ''
    const code = await main(args, (s) => (stdout += s + '\n'), (s) => (stderr += s + '\n'), { env })
    return { code, stdout, stderr }
  }

  it('openai-compatible: the key from OPENAI_API_KEY, one request per pass, the answers are the summaries; the key never printed', async () => {
    const { code, stdout, stderr } = await run(llmArgs('--json'), { OPENAI_API_KEY: 'sk-cli-test' })
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const out = JSON.parse(stdout)
    expect(out.passes.length).toBeGreaterThan(0)
    expect(server.requests).toHaveLength(out.passes.length)
    for (const r of server.requests) expect(r.headers.authorization).toBe('Bearer sk-cli-test')
    // The server answers "LLM summary <n> of <lines> message line(s)"; with summarize alone each
    // pass's slice is before messages from..upto-1, one prompt line each.
    out.passes.forEach((p: { pass: number; from: number; upto: number; summary: string; prompt: string }, i: number) => {
      expect(p.summary).toBe(`LLM summary ${i + 1} of ${p.upto - p.from} message line(s)`)
      expect(p.prompt).toBe(server.requests[i]?.lastUserText)
    })
    expect(out.summarizer).toEqual({ id: 'openai-compatible', model: 'test-model', host: `127.0.0.1:${server.port}` })
    expect(stdout).not.toContain('sk-cli-test')
  })

  it('anthropic: the key from ANTHROPIC_API_KEY as x-api-key; the human report names model and host', async () => {
    const args = llmArgs().map((a) => (a === 'openai-compatible' ? 'anthropic' : a === server.openaiBaseUrl ? server.url : a))
    const { code, stdout } = await run(args, { ANTHROPIC_API_KEY: 'sk-cli-test' })
    expect(code).toBe(0)
    expect(server.requests.length).toBeGreaterThan(0)
    expect(server.requests[0]?.path).toBe('/v1/messages')
    expect(server.requests[0]?.headers['x-api-key']).toBe('sk-cli-test')
    expect(stdout).toMatch(new RegExp(`^summarizer anthropic \\(model test-model at 127\\.0\\.0\\.1:${server.port}\\)$`, 'm'))
  })

  it('a failing summarizer (wrong key) exits 1 with the explanation on stderr; the report still prints', async () => {
    const { code, stdout, stderr } = await run(llmArgs(), { OPENAI_API_KEY: 'sk-wrong' })
    expect(code).toBe(1)
    expect(stderr).toMatch(/^error: summarize: summarizer failed at pass 1: 401 unauthorized .*OPENAI_API_KEY/m)
    expect(stderr).not.toContain('sk-wrong')
    expect(stdout).toMatch(/^tokens +\d+ → \d+/m)
  })

  it('--no-stream asks for a whole answer', async () => {
    await run(llmArgs('--no-stream'), { OPENAI_API_KEY: 'sk-cli-test' })
    expect(server.requests.every((r) => r.stream === false)).toBe(true)
  })

  it('bad usage exits 2: no --base-url, no --model, a key as a flag, LLM flags without an LLM summarizer', async () => {
    const env = { OPENAI_API_KEY: 'x' }
    expect((await run(['compact', sample, '--summarizer', 'openai-compatible', '--model', 'm'], env)).code).toBe(2)
    expect((await run(['compact', sample, '--summarizer', 'openai-compatible', '--base-url', server.openaiBaseUrl], env)).code).toBe(2)
    expect((await run(['compact', sample, '--summarizer', 'anthropic', '--model', 'm'], {})).stderr).toMatch(/ANTHROPIC_API_KEY/)
    const flag = await run([...llmArgs(), '--api-key', 'sk-cli-test'], {})
    expect(flag.code).toBe(2)
    expect(flag.stderr).toMatch(/never flags/)
    expect((await run(['compact', sample, '--model', 'm'], {})).code).toBe(2)
    expect((await run(['compact', sample, '--summarizer', 'gpt'], {})).code).toBe(2)
    expect(server.requests).toHaveLength(0)
  })
})

describe('cli compact: re-work after compaction', () => {
  const fixture = join(__dirname, '../../test/fixtures/rework/claude-code-reread-after-compact.jsonl')

  it('--json lists the re-read after the recorded /compact under rework; the report prints its sentence and a line per call', async () => {
    const json = await runCli(['compact', fixture, '--json'])
    expect(json.code).toBe(0)
    const out = JSON.parse(json.stdout)
    const recorded = out.rework.filter((r: { compaction: { kind: string } }) => r.compaction.kind === 'recorded')
    expect(recorded).toHaveLength(1)
    // The fixture re-reads convert.py (#1 → #15) and re-asks its base-currency question (#4 → #18).
    expect(recorded[0].calls.map((c: { tool: string; first: { call: { index: number } }; repeat: { call: { index: number } } }) => [c.tool, c.first.call.index, c.repeat.call.index])).toEqual([['Read', 1, 15]])
    expect(recorded[0].questions.map((q: { repeat: { question: { index: number } } }) => q.repeat.question.index)).toEqual([18])
    const text = (await runCli(['compact', fixture])).stdout
    expect(text).toContain(`  ${recorded[0].sentence}\n`)
    expect(text).toMatch(/^ {4}Read \{"file_path":"\/home\/dev\/ledger\/src\/fx\/convert\.py"\} at #15 — made before at #1, its result #2 summarized: [\d,]+ tokens$/m)
    expect(text).toMatch(/^ {4}asked again at #18: "Which base currency does convert\.py use\?" — answered before at #5: [\d,]+ tokens$/m)
  })
})

/**
 * `find --recorded --json` on a Claude Code session with several recorded compactions: a path the
 * user stated before the first compaction and never again is lost at compaction 1 (the lost
 * event's `pass`), whichever compaction the file records last; its history says so.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../../test/cli'
import { claudeCodeSession, type SessionStep } from '../../test/claude-code-session'

const PATHS = ['src/billing/invoice_rules.yaml', 'config/tax/rates_2026.json', 'docs/runbook/deploy.md']

// The user states three paths in message 0, then four compactions whose summaries name none of
// them, with turns between that never mention them again.
const steps: SessionStep[] = [
  { user: `Fix the invoices. Rules: ${PATHS[0]}, rates: ${PATHS[1]}, and follow ${PATHS[2]}.` },
  { assistant: 'I will start with the totals.' },
]
for (let k = 1; k <= 4; k++) {
  steps.push(
    { tool: 'Bash', input: { command: `make check-${k}` }, output: `check ${k}: ok` },
    { assistant: `Step ${k} done.` },
    { user: `Go on with step ${k + 1}.` },
    { compact: `Work on the invoices is in progress (step ${k}).`, preTokens: 160_000 + k },
  )
}
steps.push({ assistant: 'All steps done.' })

const dir = mkdtempSync(join(tmpdir(), 'ci-find-recorded-'))
const file = join(dir, 'session.jsonl')
writeFileSync(file, claudeCodeSession(steps))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('find --recorded --json', () => {
  it('blames each stated path on compaction 1, the first after its last occurrence', async () => {
    const out = await runCli(['find', file, ...PATHS, '--recorded', '--json'])
    expect(out.code).toBe(0)
    const facts = JSON.parse(out.stdout).facts as { verdict: string; lost?: { stage: string; pass?: number }; history: { kind: string; pass?: number }[] }[]
    expect(facts).toHaveLength(3)
    for (const f of facts) {
      expect(f.verdict).toBe('lost')
      expect(f.lost).toMatchObject({ stage: 'recorded', pass: 1 })
      expect(f.history.filter((e) => e.kind === 'lost').map((e) => e.pass)).toEqual([1])
    }
  })

  it('words the loss as the agent recorded the first compaction', async () => {
    const out = await runCli(['find', file, PATHS[0]!, '--recorded'])
    expect(out.stdout).toMatch(
      new RegExp(`^${PATHS[0]!.replace(/\./g, '\\.')}: lost in the agent's compaction 1 \\(message 6, auto, 160,001 tokens\\) — its summary omits it$`, 'm'),
    )
  })
})

describe('compact --recorded --json', () => {
  it('carries the facts table judged against the agent\'s compactions: each stated path lost at compaction 1', async () => {
    const out = await runCli(['compact', file, '--recorded', '--json'])
    expect(out.code).toBe(0)
    const recorded = JSON.parse(out.stdout).recorded as {
      passes: { stage: string; pass: number }[]
      facts: { rows: { fact: string; final: string; verdict: { lost?: { pass?: number } } }[] }
    }
    expect(recorded.passes.map((p) => `${p.stage} ${p.pass}`)).toEqual(['recorded 1', 'recorded 2', 'recorded 3', 'recorded 4'])
    for (const path of PATHS) {
      const row = recorded.facts.rows.find((r) => r.fact === path)
      expect(row?.final).toBe('lost')
      expect(row?.verdict.lost?.pass).toBe(1)
    }
  })
})

describe('compact --recorded (text)', () => {
  it("reports the agent's compactions: its passes and facts, the simulation's figures each labelled", async () => {
    const out = await runCli(['compact', file, '--recorded'])
    expect(out.code).toBe(0)
    const lines = out.stdout.split('\n')
    expect(lines[1]).toMatch(/^recorded what the agent kept, up to the agent's compaction 4 \(message \d+, auto, 160,004 tokens\)$/)
    expect(lines).toContain("passes   4 (the agent's compactions)")
    expect(lines.filter((l) => /^ {2}the agent's compaction \d \(message \d+, auto, 160,00\d tokens\): messages \d+–\d+ → summary$/.test(l))).toHaveLength(4)
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}the agent's compaction 1 \(message 6, auto, 160,001 tokens\): messages 0–/))
    // The three stated paths are among the facts the agent's compactions lost.
    const facts = lines.find((l) => l.startsWith('facts    '))
    expect(facts).toMatch(/^facts {4}\d+ of \d+ facts survive \(\d+ lost\)$/)
    expect(Number(/\((\d+) lost\)/.exec(facts!)![1])).toBeGreaterThanOrEqual(3)
    // Nothing of the simulation goes unlabelled: its one line says "simulated".
    expect(lines.filter((l) => l.startsWith('decisions') || l === 'stages')).toEqual([])
    expect(lines).toContainEqual(expect.stringMatching(/^simulated messages \d+ → \d+, tokens \d+ → \d+, passes \d+, facts .*, failure modes .*, needed .*$/))
  })

  it('--watch gives the verdict find --recorded gives', async () => {
    const watched = (await runCli(['compact', file, '--recorded', '--watch', PATHS[0]!])).stdout.split('\n')
    const found = (await runCli(['find', file, PATHS[0]!, '--recorded'])).stdout.split('\n')
    const verdict = found.find((l) => l.startsWith(`${PATHS[0]!}: `))!
    expect(verdict).toMatch(/: lost in the agent's compaction 1 \(message 6, auto, 160,001 tokens\)/)
    expect(watched).toContain(`watched ${verdict}`)
  })
})

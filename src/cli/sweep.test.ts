import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../../test/cli'

const SAMPLES = join(__dirname, '../../public/samples')
const CLAUDE = join(SAMPLES, 'claude-code.jsonl')

describe('cli sweep', () => {
  it('--json prints {x, y, cells}; each cell equals compact with the same flags', async () => {
    const { code, stdout, stderr } = await runCli([
      'sweep',
      CLAUDE,
      '--x',
      'keep_last=10..20:10',
      '--y',
      'compact_after=30,40',
      // Raw counts: the seeds' numbers on our own count (the sample records usage, auto would calibrate).
      '--calibration',
      'off',
      // Raw counts with the old seed target: the numbers below are derived from it.
      '--target',
      '12000',
      '--json',
    ])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const out = JSON.parse(stdout)
    expect(out.format).toBe('claude-code')
    expect(out.x).toEqual({ param: 'keep_last', values: [10, 20] })
    expect(out.y).toEqual({ param: 'compact_after', values: [30, 40] })
    expect(out.cells.length).toBe(2)
    for (const [yi, after] of [30, 40].entries()) {
      for (const [xi, keep] of [10, 20].entries()) {
        const single = await runCli(['compact', CLAUDE, '--keep-last', String(keep), '--compact-after', String(after), '--calibration', 'off', '--target', '12000', '--json'])
        const run = JSON.parse(single.stdout)
        expect(out.cells[yi][xi]).toMatchObject({
          ok: true,
          x: keep,
          y: after,
          tokensAfter: run.after.tokens,
          tokensSaved: run.before.tokens - run.after.tokens,
          passes: run.passes.length,
          factsLost: run.facts.totals.lost,
          neededLost: run.facts.totals.needed,
        })
      }
    }
    // The seeds' cell (20, 40) on the raw count with target 12,000: 19,526 → 6,206 tokens
    // (6,249 less the 43-token signed thinking block of a kept earlier turn, dropped after the summary).
    expect(out.tokensBefore).toBe(19526)
    expect(out.cells[1][1].tokensAfter).toBe(6206)
  })

  it('prints four tables (rows = y, columns = x) and explains marked cells', async () => {
    const { code, stdout } = await runCli(['sweep', CLAUDE, '--x', 'keep_last=20,30', '--y', 'compact_after=25,40'])
    expect(code).toBe(0)
    const lines = stdout.split('\n')
    expect(lines[1]).toBe(
      'sweep   x = keep_last (summarize, messages), y = compact_after (summarize, messages): 2 × 2 cells',
    )
    expect(lines).toContain('tokens after (% saved)')
    expect(lines).toContain('passes')
    expect(lines.some((l) => /^important facts lost \(of \d+\)$/.test(l))).toBe(true)
    expect(lines).toContain('needed facts lost (a later message needed them)')
    expect(lines.filter((l) => /^ {2}compact_after \\ keep_last +20 +30$/.test(l))).toHaveLength(4)
    // keep_last 30 > compact_after 25: the engine clamps, the cell is starred and explained.
    expect(lines).toContain('* keep_last 30, compact_after 25: compact_after 25 < keep_last 30: the engine clamps it up to 30')
  })

  it('a cell a stage refuses reads "invalid" with the stage’s reason', async () => {
    const { code, stdout } = await runCli(['sweep', CLAUDE, '--x', 'target=8000', '--y', 'keep_steps=0,1'])
    expect(code).toBe(0)
    expect(stdout).toContain(
      'invalid target 8000, keep_steps 0: prune-tool-results: keep_steps must be at least 1: the model has not acted on the newest results yet',
    )
  })

  it('with an LLM summarizer the sweep runs the offline extractive one and says so, as the page does', async () => {
    const flags = ['--summarizer', 'openai-compatible', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm']
    const axes = ['--x', 'keep_last=10,20', '--y', 'compact_after=30,40']
    const json = await runCli(['sweep', CLAUDE, ...axes, ...flags, '--json'])
    expect(json.stderr).toBe('')
    expect(json.code).toBe(0)
    const out = JSON.parse(json.stdout)
    expect(out.note).toBe(
      'The sweep uses the offline extractive summarizer instead of openai-compatible: every pass of every cell would be a request.',
    )
    // The same cells as a sweep asked for the extractive summarizer.
    const offline = JSON.parse((await runCli(['sweep', CLAUDE, ...axes, '--json'])).stdout)
    expect(offline.note).toBeUndefined()
    expect(out.cells).toEqual(offline.cells)
    const text = await runCli(['sweep', CLAUDE, ...axes, ...flags])
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/^note: The sweep uses the offline extractive summarizer instead of openai-compatible/m)
  })

  it('bad axes are usage errors (exit 2) saying what is wrong', async () => {
    const missing = await runCli(['sweep', CLAUDE, '--x', 'keep_last=5..40:5'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/^error: sweep needs --y, e\.g\. --x keep_last=5\.\.40:5 --y compact_after=10\.\.80:10$/m)
    const backwards = await runCli(['sweep', CLAUDE, '--x', 'keep_last=40..5:5', '--y', 'compact_after=10'])
    expect(backwards.code).toBe(2)
    expect(backwards.stderr).toMatch(/^error: --x: keep_last: the range 40\.\.5 runs backwards$/m)
    const same = await runCli(['sweep', CLAUDE, '--x', 'target=1000', '--y', 'target=2000'])
    expect(same.stderr).toMatch(/^error: --x and --y are both target: choose two different parameters$/m)
  })
})

describe('cli compact: clear-tool-uses flags of prune-tool-results', () => {
  const prune = async (extra: string[]) => {
    const { code, stdout } = await runCli(['compact', CLAUDE, '--stages', 'prune-tool-results', '--target', '10000', ...extra, '--json'])
    expect(code).toBe(0)
    return JSON.parse(stdout).stages[0] as { changed: boolean; note?: string }
  }

  it('--exclude-tools naming every tool of the sample leaves nothing to prune', async () => {
    expect((await prune([])).changed).toBe(true)
    const stage = await prune(['--exclude-tools', 'Bash, Read,Grep,Edit'])
    expect(stage.changed).toBe(false)
    expect(stage.note).toMatch(/^nothing to prune: \d+ > 10000 tokens, but every tool result is guarded, excluded, under min_tokens or already replaced$/)
  })

  it('--clear-at-least above what pruning can clear makes no change and says why', async () => {
    const stage = await prune(['--clear-at-least', '1000000'])
    expect(stage.changed).toBe(false)
    expect(stage.note).toMatch(/^no change: pruning could clear only \d+ of the 1000000 tokens clear_at_least asks for;/)
  })

  it('--keep-tool-uses and --clear-at-least take whole numbers ≥ 0', async () => {
    const bad = await runCli(['compact', CLAUDE, '--clear-at-least=-1'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/^error: --clear-at-least must not be negative, got -1$/m)
    const word = await runCli(['compact', CLAUDE, '--keep-tool-uses', 'three'])
    expect(word.code).toBe(2)
    expect(word.stderr).toMatch(/^error: --keep-tool-uses takes a whole number, got "three"$/m)
  })
})

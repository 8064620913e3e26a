/**
 * The CLI on a fact needed after compaction removed it: `compact` prints the `needed` lines (the
 * one totals wording, naming the facts), `compact --json` carries the facts table's row (needed,
 * and re-read by a tool) and totals, `find --json` the verdict's `neededAfterLoss`. The fixture
 * (test/fixtures/facts/lamp-read-again.json): the catalog search returns 42 lamp ids at message
 * 3; under summarize keep_last 2 / compact_after 4 pass 1 fires at the turn end 6 and folds 1–4,
 * its summary holding at most 40 of those ids (the extractive summary's MAX_FACTS), so LMP-1042,
 * the last, is lost; the agent searches again (call 8, result 9 — re-work) and at message 10 the
 * assistant answers "Yes: LMP-1042, …": the assistant needed it.
 */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { runCli } from '../../test/cli'

const FIXTURE = fileURLToPath(new URL('../../test/fixtures/facts/lamp-read-again.json', import.meta.url))
const SETTINGS = ['--keep-last', '2', '--compact-after', '4']

/** LMP-1042: lost at pass 1 (turn end 6), needed by the assistant's words at message 10. */
const NEEDED = {
  stage: 'summarize',
  pass: 1,
  atMessage: 6,
  messageId: 'm10',
  messageIndex: 10,
  role: 'assistant',
  how: 'verbatim',
}

describe('a fact needed after compaction removed it, in the CLI', () => {
  it('compact: the totals line names the fact, then a line per fact; --json: the row (needed, and re-read by the tool) and the totals', async () => {
    const text = await runCli(['compact', FIXTURE, ...SETTINGS])
    expect(text.stderr).toBe('')
    expect(text.code).toBe(0)
    const lines = text.stdout.split('\n')
    expect(lines).toContain('needed   1 fact was needed after compaction removed it: LMP-1042')
    expect(lines).toContain('  "LMP-1042": removed by pass 1 of summarize at #6, needed at #10 (assistant, verbatim)')
    const json = JSON.parse((await runCli(['compact', FIXTURE, ...SETTINGS, '--json'])).stdout)
    expect(json.facts.totals).toMatchObject({ needed: 1, neededText: '1 fact was needed after compaction removed it: LMP-1042' })
    const row = json.facts.rows.find((r: { fact: string }) => r.fact === 'LMP-1042')
    // The second search's result (message 9) brought it back first: re-work, apart from the need.
    expect(row).toMatchObject({
      kind: 'id',
      neededAfterLoss: NEEDED,
      reReadAfterLoss: { stage: 'summarize', pass: 1, atMessage: 6, messageId: 'm9', messageIndex: 9, role: 'tool', how: 'tool-result' },
    })
    // The user's own LMP-1007 is never mentioned after a loss.
    expect(json.facts.rows.find((r: { fact: string }) => r.fact === 'LMP-1007').neededAfterLoss).toBeUndefined()
  })

  it('find --json: the verdict carries how the fact was needed; a fact nobody mentions again carries nothing', async () => {
    const { code, stdout, stderr } = await runCli(['find', FIXTURE, 'LMP-1042', 'LMP-1007', ...SETTINGS, '--json'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const [quartz, glow] = JSON.parse(stdout).facts
    expect(quartz).toMatchObject({ query: 'LMP-1042', neededAfterLoss: NEEDED })
    expect(glow.query).toBe('LMP-1007')
    expect(glow.neededAfterLoss).toBeUndefined()
  })
})

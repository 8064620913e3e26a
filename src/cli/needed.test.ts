/**
 * The CLI on a fact needed after compaction removed it: `find --json` carries `neededAfterLoss`
 * on the verdict, `compact` prints the `needed` lines and `compact --json` the facts table's
 * row and totals. The fixture: the user gives the postal code 01310-100 at message 5, pass 2 of
 * summarize (keep_last 2, compact_after 4; it fires at turn end 10) leaves it out of its summary
 * (pass 1's forty lamp ids fill the summary's facts), and message 11 says "Ship it to the postal
 * code I gave you."
 */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { POSTAL_CODE_FIXTURE, POSTAL_CODE_NEEDED } from '../../test/postal-code-needed'
import { runCli } from '../../test/cli'

const FIXTURE = fileURLToPath(POSTAL_CODE_FIXTURE)
const SETTINGS = ['--keep-last', '2', '--compact-after', '4']

describe('a fact needed after compaction removed it, in the CLI', () => {
  it('find --json: the postal code is lost in pass 2 and needed by message 11; a fact kept in the summary is not', async () => {
    const { code, stdout, stderr } = await runCli(['find', FIXTURE, '01310-100', 'LMP-1007', ...SETTINGS, '--json'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const [postal, lamp] = JSON.parse(stdout).facts
    expect(postal).toMatchObject({ query: '01310-100', verdict: 'lost', lost: { stage: 'summarize', pass: 2 }, neededAfterLoss: POSTAL_CODE_NEEDED })
    // LMP-1007 is among the forty ids pass 2's summary keeps.
    expect(lamp).toMatchObject({ query: 'LMP-1007', verdict: 'survives' })
    expect(lamp.neededAfterLoss).toBeUndefined()
  })

  it('compact: a needed line per fact; --json: the row and the totals of the facts table', async () => {
    const text = await runCli(['compact', FIXTURE, ...SETTINGS])
    expect(text.code).toBe(0)
    const lines = text.stdout.split('\n')
    expect(lines).toContain('needed   1 fact was needed after compaction removed it')
    expect(lines).toContain(
      '  "01310-100": removed by pass 2 of summarize at #10, needed at #11 (user: "Ship it to the postal code I gave you.")',
    )
    const json = JSON.parse((await runCli(['compact', FIXTURE, ...SETTINGS, '--json'])).stdout)
    expect(json.facts.totals).toMatchObject({ needed: 1, neededText: '1 fact was needed after compaction removed it' })
    const row = json.facts.rows.find((r: { fact: string }) => r.fact === '01310-100')
    expect(row).toMatchObject({ kind: 'postal-code', final: 'lost', neededAfterLoss: POSTAL_CODE_NEEDED })
  })
})

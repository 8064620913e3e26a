import { expect, test, type Page } from '@playwright/test'
import type { FactRowsQuery } from '../src/engine/fact-query'
import { createEngineApi } from '../src/worker/engine-api'
import type { FactTableView } from '../src/worker/protocol'
import { openApp, watchErrors } from './helpers'

/**
 * A chat of `blocks` tool runs, each listing five orders: an order ID, a path and a duration per
 * line (the durations, a tool run's measures, are noise), and the assistant's dated check: more
 * than 2,000 facts, so the facts table stays in the worker and the page asks for the rows it shows.
 */
function ledgerChat(blocks: number): string {
  const messages: unknown[] = [{ role: 'user', content: 'Reconcile the shipping ledger; every order below must be checked.' }]
  for (let b = 0; b < blocks; b++) {
    const lines: string[] = []
    for (let k = 0; k < 5; k++) {
      const n = b * 5 + k
      lines.push(`ORD-${10_000 + n} written to src/ledger/part${n}.ts in ${(n / 10).toFixed(1)}s`)
    }
    const day = new Date(Date.UTC(2024, 0, 1 + b)).toISOString().slice(0, 10)
    const call = { id: `call_${b}`, type: 'function', function: { name: 'run', arguments: JSON.stringify({ cmd: `ledger check ${b}` }) } }
    messages.push({ role: 'assistant', content: null, tool_calls: [call] })
    messages.push({ role: 'tool', tool_call_id: `call_${b}`, content: lines.join('\n') })
    messages.push({ role: 'assistant', content: `Block ${b} checked, dated ${day}.` })
  }
  return JSON.stringify({ messages })
}

const count = (n: number) => n.toLocaleString('en-US')
const DEFAULT: FactRowsQuery = { text: '', kind: '', showNoise: false, onlyLost: false, sorting: [] }

/** The engine in Node, run on the same file with the page's default pipeline: the table the page should list. */
async function oracle(text: string, watched: string[] = []) {
  const api = createEngineApi()
  const imported = api.importText(text, 'ledger.json')
  if (!imported.ok) throw new Error(imported.error.message)
  const run = await api.run(api.getDefaults(), 1)
  if (!run.ok) throw new Error(run.error)
  const out = await api.getFactTable(1, undefined, watched)
  if (!out.ok || 'unchanged' in out) throw new Error('no facts table')
  const table: FactTableView = out.table
  /** Every row `query` lists, in its order, as fact texts. */
  const facts = (query: Partial<FactRowsQuery>): string[] => {
    const rows = api.getFactRows(table.version, { ...DEFAULT, ...query }, 0, table.count)
    if (!rows.ok) throw new Error(rows.error)
    return rows.rows.map((r) => r.fact)
  }
  return { table, facts }
}

interface Seen {
  /** [position, fact] of every row shown outside a busy list, each time the list changed. */
  shown: [number, string][]
  /** Positions of the placeholder rows shown. */
  placeholders: number[]
  /** Whether the list was marked busy (its rows the previous query's). */
  busy: boolean
}

/**
 * Runs `action` in the page with a MutationObserver on the facts list already watching: every
 * state the DOM passes through after it is recorded (`Seen`), read with `seen`.
 */
async function actWatching(page: Page, action: { scrollTop: number } | { fill: string } | { click: string }): Promise<void> {
  await page.evaluate((act) => {
    const w = window as unknown as { __factsSeen?: Seen; __factsObserver?: MutationObserver }
    w.__factsObserver?.disconnect()
    const seen: Seen = { shown: [], placeholders: [], busy: false }
    w.__factsSeen = seen
    const scroller = document.querySelector<HTMLElement>('[data-testid="facts-table"]')
    if (!scroller) throw new Error('no facts table')
    const record = () => {
      const group = scroller.querySelector('.facts__rows')
      if (!group) return
      const busy = group.getAttribute('aria-busy') === 'true'
      if (busy) seen.busy = true
      for (const row of group.querySelectorAll('[role="row"]')) {
        const index = Number(row.getAttribute('data-index'))
        const fact = row.getAttribute('data-fact')
        if (fact === null) {
          if (row.getAttribute('aria-busy') === 'true') seen.placeholders.push(index)
        } else if (!busy) seen.shown.push([index, fact])
      }
    }
    const observer = new MutationObserver(record)
    observer.observe(scroller, { subtree: true, childList: true, attributes: true, characterData: true })
    w.__factsObserver = observer
    if ('scrollTop' in act) scroller.scrollTop = act.scrollTop
    else if ('fill' in act) {
      const input = document.querySelector<HTMLInputElement>('input[aria-label="Filter facts by text"]')
      if (!input) throw new Error('no filter')
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set?.call(input, act.fill)
      input.dispatchEvent(new Event('input', { bubbles: true }))
    } else {
      const button = [...scroller.querySelectorAll<HTMLButtonElement>('[role="columnheader"] button')].find((b) =>
        (b.textContent ?? '').startsWith(act.click),
      )
      if (!button) throw new Error(`no header ${act.click}`)
      button.click()
    }
  }, action)
}

const seen = (page: Page) => page.evaluate(() => (window as unknown as { __factsSeen: Seen }).__factsSeen)

/** [position, fact] of the fact rows on screen, once none is a placeholder and the list is not busy. */
async function settledRows(page: Page): Promise<[number, string][]> {
  const read = () =>
    page.evaluate(() => {
      const group = document.querySelector('[data-testid="facts-table"] .facts__rows')
      if (!group || group.getAttribute('aria-busy') === 'true' || group.querySelector('[role="row"][aria-busy="true"]')) return null
      return [...group.querySelectorAll('[role="row"][data-fact]')]
        .map((r) => [Number(r.getAttribute('data-index')), r.getAttribute('data-fact') ?? ''] as [number, string])
        .sort((a, b) => a[0] - b[0])
    })
  await expect.poll(read, { timeout: 30_000 }).not.toBeNull()
  return (await read()) ?? []
}

/** Every recorded row sat at its position in `expected` (the new query's list). */
function expectAllAt(shown: [number, string][], expected: string[]): void {
  expect(shown.length).toBeGreaterThan(0)
  for (const [i, fact] of shown) expect(fact, `row ${i}`).toBe(expected[i])
}

test('a facts table too long to cross whole: totals, order, sort, filters, noise, far rows and watched facts from the worker', async ({ page }) => {
  test.setTimeout(180_000)
  const text = ledgerChat(300)
  const { table, facts } = await oracle(text)
  // Built to be long: 1,501 at-risk facts of IDs, paths and dates, 1,500 noise durations.
  expect(table.count).toBeGreaterThan(2_000)
  expect(table.rows).toEqual([])
  const all = facts({})
  const noise = table.totals.noise

  const errors = watchErrors(page)
  await openApp(page)
  await page.getByLabel('Open transcript').setInputFiles({ name: 'ledger.json', mimeType: 'application/json', buffer: Buffer.from(text) })
  await expect(page.getByTestId('file-info')).toContainText('ledger.json', { timeout: 60_000 })
  await page.getByRole('tab', { name: 'Facts' }).click()

  // Totals: the engine's line, noise named apart.
  const t = table.totals
  const extra = [t.summaryOnly > 0 ? `${count(t.summaryOnly)} only in a summary` : '', t.pinned > 0 ? `${count(t.pinned)} only pinned` : '']
  const totalsText = (shown: boolean) => `${t.text} (${[...extra.filter(Boolean), `${count(noise)} noise facts ${shown ? 'shown' : 'hidden'}`].join(', ')})`
  await expect(page.getByTestId('facts-totals')).toHaveText(totalsText(false), { timeout: 60_000 })
  const toolbar = page.locator('.facts .table-view__toolbar')
  await expect(toolbar).toContainText(`${count(all.length)} of ${count(table.count)} shown`)

  // The first rows in the default order.
  const top = await settledRows(page)
  expect(top[0]?.[0]).toBe(0)
  expect(top.length).toBeGreaterThanOrEqual(10)
  expectAllAt(top, all)

  // Far down: rows whose page has not arrived show placeholders, then the rows at those positions.
  const scroller = page.getByTestId('facts-table')
  await actWatching(page, { scrollTop: 2_600 * 38 })
  await expect.poll(async () => (await settledRows(page))[0]?.[0] ?? 0).toBeGreaterThan(2_000)
  const far = await settledRows(page)
  expectAllAt(far, all)
  const farSeen = await seen(page)
  expect(farSeen.placeholders.length).toBeGreaterThan(0)
  expect(Math.min(...farSeen.placeholders)).toBeGreaterThan(1_000)
  expectAllAt(farSeen.shown, all)

  // Text filter: from the top, only the facts holding the text, every row ever shown one of them.
  const part12 = facts({ text: 'PART12' })
  expect(part12.length).toBeGreaterThan(0)
  expect(part12.length).toBeLessThan(200)
  await actWatching(page, { fill: 'PART12' })
  await expect(toolbar).toContainText(`${count(part12.length)} of ${count(table.count)} shown`)
  expect((await settledRows(page)).map(([, f]) => f)).toEqual(part12)
  const filterSeen = await seen(page)
  expectAllAt(filterSeen.shown, part12)
  expect(filterSeen.busy).toBe(true)
  await expect(scroller).toHaveJSProperty('scrollTop', 0)
  await actWatching(page, { fill: '' })
  await expect(toolbar).toContainText(`${count(all.length)} of ${count(table.count)} shown`)
  expectAllAt(await settledRows(page), all)

  // Kind filter: the dates, one per block.
  const dates = facts({ kind: 'date' })
  expect(dates.length).toBe(300)
  await page.getByRole('combobox', { name: 'Filter by kind' }).selectOption({ label: 'date' })
  await expect(toolbar).toContainText(`${count(dates.length)} of ${count(table.count)} shown`)
  await expect.poll(async () => (await settledRows(page))[0]?.[1]).toBe(dates[0])
  expectAllAt(await settledRows(page), dates)
  await page.getByRole('combobox', { name: 'Filter by kind' }).selectOption({ label: 'all' })

  // Noise shown: every fact; the noise last, down to the table's end.
  const withNoise = facts({ showNoise: true })
  expect(withNoise.length).toBe(table.count)
  await page.getByRole('checkbox', { name: /^Show noise/ }).check()
  await expect(page.getByTestId('facts-totals')).toHaveText(totalsText(true))
  await expect(toolbar).toContainText(`${count(table.count)} of ${count(table.count)} shown`)
  await expect.poll(async () => (await settledRows(page))[0]?.[1]).toBe(withNoise[0])
  await actWatching(page, { scrollTop: 1e9 })
  await expect.poll(async () => (await settledRows(page)).at(-1)?.[0]).toBe(table.count - 1)
  expectAllAt(await settledRows(page), withNoise)
  await page.getByRole('checkbox', { name: /^Show noise/ }).uncheck()
  await expect(toolbar).toContainText(`${count(all.length)} of ${count(table.count)} shown`)

  // Sort by a column: its order from the top; the previous order's rows never shown as this one's.
  const byFact = facts({ sorting: [{ id: 'fact', desc: false }] })
  await actWatching(page, { click: 'Fact' })
  await expect(scroller.getByRole('columnheader', { name: /^Fact/ })).toHaveAttribute('aria-sort', 'ascending')
  await expect.poll(async () => (await settledRows(page))[0]?.[1]).toBe(byFact[0])
  expectAllAt(await settledRows(page), byFact)
  const sortSeen = await seen(page)
  expectAllAt(sortSeen.shown, byFact)
  expect(sortSeen.busy).toBe(true)

  const byFirstSeenDesc = facts({ sorting: [{ id: 'firstSeen', desc: true }] })
  await actWatching(page, { click: 'First seen' })
  await expect(scroller.getByRole('columnheader', { name: /^First seen/ })).toHaveAttribute('aria-sort', 'descending')
  await expect.poll(async () => (await settledRows(page))[0]?.[1]).toBe(byFirstSeenDesc[0])
  expectAllAt(await settledRows(page), byFirstSeenDesc)
  expectAllAt((await seen(page)).shown, byFirstSeenDesc)
  // Back to the default order (descending, ascending, none).
  await scroller.getByRole('button', { name: /^First seen/ }).click()
  await scroller.getByRole('button', { name: /^First seen/ }).click()
  await expect(scroller.getByRole('columnheader', { name: /^First seen/ })).not.toHaveAttribute('aria-sort', /./)
  await expect.poll(async () => (await settledRows(page))[0]?.[1]).toBe(all[0])

  // A watched fact on the long table: a new table, the watched row first.
  const watched = await oracle(text, ['ORD-10042'])
  const watchedAll = watched.facts({})
  expect(watchedAll[0]).toBe('ORD-10042')
  await page.getByRole('textbox', { name: 'A fact to watch' }).fill('ORD-10042')
  await page.getByRole('button', { name: 'Watch', exact: true }).click()
  await expect(page.getByTestId('facts-totals')).toContainText(watched.table.totals.text)
  await expect(toolbar).toContainText(`${count(watchedAll.length)} of ${count(watched.table.count)} shown`)
  await expect.poll(async () => (await settledRows(page))[0]?.[1]).toBe('ORD-10042')
  expectAllAt(await settledRows(page), watchedAll)
  await expect(scroller.locator('[role="row"][data-index="0"]').getByRole('button', { name: 'Stop watching ORD-10042' })).toBeVisible()
  expect(errors).toEqual([])
})

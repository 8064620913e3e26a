import { readFileSync, writeFileSync } from 'node:fs'
import { expect, test, type Page } from '@playwright/test'
import { openApp, rows, watchErrors } from './helpers'

const firstLoad = { timeout: 90_000 }
/** A zip transcript (an Inspect .eval log): a binary input the session file must carry exactly. */
const EVAL = 'test/fixtures/formats/inspect-ai-sample.eval'
/** A transcript other than the bundled sample, for the link made elsewhere. */
const CODEX = 'test/fixtures/formats/codex-multi-turn-developer.jsonl'

const hash = (page: Page) => page.evaluate(() => window.location.hash)

/** Opens a file through the header's file picker and waits for its run. */
async function openFile(page: Page, path: string, shownAs: string): Promise<void> {
  await page.getByLabel('Open transcript…').setInputFiles(path)
  await expect(page.getByTestId('file-info')).toContainText(shownAs, firstLoad)
  await expect(page.getByTestId('loading')).toHaveCount(0, firstLoad)
}

/** What a session must restore: the totals, the stage settings (the link's cfg) and the watched facts. */
async function shown(page: Page) {
  await expect(page.getByTestId('loading')).toHaveCount(0, firstLoad)
  const text = (id: string) => page.getByTestId(id).textContent()
  const h = await hash(page)
  return {
    before: await text('tokens-before'),
    after: await text('tokens-after'),
    messagesAfter: await text('messages-after'),
    keepLast: await page.getByRole('spinbutton', { name: 'summarize keep_last value' }).inputValue(),
    cfg: /cfg=([^&]*)/.exec(h)?.[1],
    watch: /watch=([^&]*)/.exec(h)?.[1],
  }
}

/** Downloads the session file from the Export menu; returns its suggested name and where it was saved. */
async function saveSession(page: Page): Promise<{ name: string; path: string }> {
  const menu = page.getByTestId('export-menu')
  if ((await menu.count()) > 0 && !(await menu.evaluate((el) => (el as HTMLDetailsElement).open))) {
    await menu.locator('summary').click()
  }
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Session file' }).click()])
  return { name: file.suggestedFilename(), path: await file.path() }
}

test('a session file exported and re-opened in a fresh page restores the transcript (a zip), the settings and the watched facts', async ({
  page,
  context,
}) => {
  const errors = watchErrors(page)
  await openApp(page)
  await openFile(page, EVAL, 'inspect-ai-sample.eval')
  await page.getByRole('slider', { name: 'summarize keep_last' }).fill('3')
  await expect(page.getByRole('spinbutton', { name: 'summarize keep_last value' })).toHaveValue('3')
  await page.getByRole('tab', { name: 'Facts' }).click()
  await page.getByRole('textbox', { name: 'A fact to watch' }).fill('capital of France')
  await page.getByRole('button', { name: 'Watch', exact: true }).click()
  await expect(page.getByRole('button', { name: 'Stop watching capital of France' })).toBeVisible()
  await expect.poll(() => hash(page)).toContain('watch=capital%20of%20France')
  const expected = await shown(page)
  expect(expected.cfg).toContain('keep_last=3')

  const saved = await saveSession(page)
  expect(saved.name).toBe('inspect-ai-sample.session.json')
  const text = readFileSync(saved.path, 'utf8')
  const file = JSON.parse(text) as Record<string, unknown>
  expect(file.kind).toBe('compaction-inspector-session')
  expect(file.version).toBe(1)
  expect(file.transcript).toMatchObject({
    fileName: 'inspect-ai-sample.eval',
    encoding: 'base64',
    data: readFileSync(EVAL).toString('base64'),
    conversation: 'main',
  })
  expect(file.settings).toBe(expected.cfg)
  expect(file.watched).toEqual(['capital of France'])
  expect(file.tab).toBe('facts')
  expect(text).not.toMatch(/apiKey|sk-/)
  const sessionPath = test.info().outputPath('inspect.session.json')
  writeFileSync(sessionPath, text)

  // By the file picker, in a fresh page that opened on the bundled sample.
  const picked = await context.newPage()
  const pickedErrors = watchErrors(picked)
  await openApp(picked)
  await openFile(picked, sessionPath, 'inspect-ai-sample.eval')
  await expect(picked.getByRole('tab', { name: 'Facts' })).toHaveAttribute('aria-selected', 'true')
  await expect(picked.getByRole('button', { name: 'Stop watching capital of France' })).toBeVisible()
  await expect.poll(() => shown(picked)).toEqual(expected)
  expect(pickedErrors).toEqual([])
  expect(errors).toEqual([])
})

test('a session file opens by drop and by paste; one of an unknown version is refused naming the field', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  // A session file written by hand in the documented shape: the .eval zip, keep_last 3, one watched fact.
  await expect.poll(() => hash(page)).toContain('keep_last=20')
  const cfg = /cfg=([^&]*)/.exec(await hash(page))?.[1] ?? ''
  const session = {
    kind: 'compaction-inspector-session',
    version: 1,
    transcript: { fileName: 'inspect-ai-sample.eval', encoding: 'base64', data: readFileSync(EVAL).toString('base64') },
    settings: cfg.replace('keep_last=20', 'keep_last=3'),
    watched: ['capital of France'],
    tab: 'facts',
    message: null,
  }
  const dataTransfer = await page.evaluateHandle((json) => {
    const dt = new DataTransfer()
    dt.items.add(new File([json], 'shared.session.json', { type: 'application/json' }))
    return dt
  }, JSON.stringify(session))
  await page.dispatchEvent('body', 'dragenter', { dataTransfer })
  await page.dispatchEvent('body', 'drop', { dataTransfer })
  await expect(page.getByTestId('file-info')).toContainText('inspect-ai-sample.eval', firstLoad)
  await expect(page.getByRole('spinbutton', { name: 'summarize keep_last value' })).toHaveValue('3')
  await expect(page.getByRole('tab', { name: 'Facts' })).toHaveAttribute('aria-selected', 'true')
  await expect(page.getByRole('button', { name: 'Stop watching capital of France' })).toBeVisible()

  // Paste: back to the sample first, then the same session pasted; a version 2 file is refused.
  await page.getByRole('button', { name: 'Samples ▾' }).click()
  await page.getByTestId('sample-gallery').getByRole('button', { name: /Claude Code/ }).first().click()
  await expect(page.getByTestId('file-info')).toContainText('claude-code.jsonl', firstLoad)
  await page.getByRole('button', { name: 'Paste' }).click()
  const dialog = page.getByRole('dialog', { name: 'Paste a transcript' })
  await dialog.getByLabel('Transcript text').fill(JSON.stringify({ ...session, version: 2 }))
  await dialog.getByRole('button', { name: 'Import' }).click()
  await expect(dialog.getByTestId('paste-error')).toHaveText(
    'Could not import: session file: "version" 2: this page reads session files of version 1',
  )
  await expect(page.getByTestId('file-info')).toContainText('claude-code.jsonl')
  await dialog.getByLabel('Transcript text').fill(JSON.stringify({ ...session, watched: ['Paris'] }))
  await dialog.getByRole('button', { name: 'Import' }).click()
  await expect(dialog).toHaveCount(0)
  await expect(page.getByTestId('file-info')).toContainText('inspect-ai-sample.eval', firstLoad)
  await expect(page.getByRole('spinbutton', { name: 'summarize keep_last value' })).toHaveValue('3')
  await expect(page.getByRole('button', { name: 'Stop watching Paris' })).toBeVisible()
  expect(errors).toEqual([])
})

test('a settings link made on another transcript says so until that transcript is opened', async ({ page, context }) => {
  const errors = watchErrors(page)
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  await openApp(page)
  await openFile(page, CODEX, 'codex-multi-turn-developer.jsonl')
  await page.getByRole('button', { name: 'Copy link' }).click()
  await expect(page.getByRole('button', { name: 'Link copied' })).toBeVisible()
  const link = await page.evaluate(() => navigator.clipboard.readText())
  const fingerprint = /[#&]t=([0-9a-f]+)(?:&|$)/.exec(link)?.[1]
  expect(fingerprint).toMatch(/^[0-9a-f]{12}$/)
  // Never the transcript's name or text.
  expect(link).not.toContain('codex')
  expect(link).not.toContain('multi-turn')

  // Opened in a fresh page: it shows the bundled sample, so the notice names it.
  const other = await context.newPage()
  const otherErrors = watchErrors(other)
  await other.goto(link)
  await expect(other.getByTestId('file-info')).toContainText('claude-code.jsonl', firstLoad)
  const notice = other.getByTestId('share-notice')
  await expect(notice).toHaveText(
    'ℹThese settings were shared from a different transcript than the one shown (claude-code.jsonl). Open your copy of that transcript to see what they saw.✕',
    firstLoad,
  )
  // A reload still knows where the link came from.
  await expect.poll(() => hash(other)).toContain(`t=${fingerprint}`)
  await openFile(other, CODEX, 'codex-multi-turn-developer.jsonl')
  await expect(notice).toHaveCount(0)
  await expect.poll(() => hash(other)).toContain(`t=${fingerprint}`)
  expect(otherErrors).toEqual([])
  await other.close()

  expect(errors).toEqual([])
})

test('a link made on the transcript shown raises no notice; a notice can be dismissed', async ({ page, context }) => {
  const errors = watchErrors(page)
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  await openApp(page)
  await page.getByRole('button', { name: 'Copy link' }).click()
  await expect(page.getByRole('button', { name: 'Link copied' })).toBeVisible()
  const link = await page.evaluate(() => navigator.clipboard.readText())
  const fingerprint = /[#&]t=([0-9a-f]{12})(?:&|$)/.exec(link)?.[1] ?? ''
  expect(fingerprint).toMatch(/^[0-9a-f]{12}$/)
  await page.goto(link)
  await page.reload()
  await expect(page.getByTestId('file-info')).toContainText('claude-code.jsonl', firstLoad)
  await expect(page.getByTestId('loading')).toHaveCount(0, firstLoad)
  await expect(page.getByTestId('share-notice')).toHaveCount(0)

  // The same link with another fingerprint: the notice, until dismissed (then the hash says what is shown).
  const other = fingerprint === '000000000000' ? '111111111111' : '000000000000'
  await page.goto(link.replace(`t=${fingerprint}`, `t=${other}`))
  await page.reload()
  await expect(page.getByTestId('share-notice')).toBeVisible(firstLoad)
  await page.getByRole('button', { name: 'Dismiss notice' }).click()
  await expect(page.getByTestId('share-notice')).toHaveCount(0)
  await expect.poll(() => hash(page)).toContain(`t=${fingerprint}`)
  expect(errors).toEqual([])
})

test('#m=41 selects message 41 and shows it in both columns; clicking writes m=, #tab=facts opens Facts', async ({ page }) => {
  const errors = watchErrors(page)
  await page.goto('/#m=41')
  await expect(page.getByTestId('totals')).toBeVisible(firstLoad)
  await expect(page.getByTestId('loading')).toHaveCount(0, firstLoad)
  const selected = page.getByTestId('before-column').locator('[role="row"][aria-selected="true"]')
  await expect(selected).toHaveCount(1)
  await expect(selected.locator('.msg__index')).toHaveText('#41')
  await expect(selected).toBeInViewport()
  await expect(page.getByTestId('after-column').locator('[data-counterpart]').first()).toBeInViewport()
  await expect.poll(() => hash(page)).toContain('m=41')

  // A click on another message writes its position, without a history entry.
  const length = await page.evaluate(() => window.history.length)
  const row = rows(page, 'before').filter({ has: page.locator('.msg__index', { hasText: /^#40$/ }) })
  await row.click()
  await expect.poll(() => hash(page)).toMatch(/[#&]m=40(?:&|$)/)
  expect(await page.evaluate(() => window.history.length)).toBe(length)

  // A tab in the link opens; changing the tab writes it.
  await page.goto('/#tab=facts')
  await page.reload()
  await expect(page.getByRole('tab', { name: 'Facts' })).toHaveAttribute('aria-selected', 'true', firstLoad)
  await expect(page.getByTestId('loading')).toHaveCount(0, firstLoad)
  await page.getByRole('tab', { name: 'Table' }).click()
  await expect.poll(() => hash(page)).toMatch(/[#&]tab=table(?:&|$)/)
  await page.getByRole('tab', { name: 'Before | After' }).click()
  await expect.poll(() => hash(page)).not.toContain('tab=')
  expect(errors).toEqual([])
})

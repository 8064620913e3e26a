import { expect, test } from '@playwright/test'
import { openApp, watchErrors } from './helpers'

test('re-work after compaction: the agent’s own /compact and a simulated pass each list what was fetched or asked again', async ({
  page,
}) => {
  test.setTimeout(240_000)
  const errors = watchErrors(page)
  await openApp(page)
  const list = page.getByTestId('rework-list')

  await test.step('bundled Claude Code sample: the re-reads after the recorded /compact at message 28', async () => {
    // After the /compact (boundary at #28) the agent reads data/carriers.csv again (first at #9)
    // and lists the root again (`ls -la`, last made at #12).
    await expect(list.locator('summary')).toHaveText(/^Re-work after compaction: 2 repeated tool calls — [\d,]+ tokens$/)
    await list.locator('summary').click()
    const entry = list.getByTestId('rework-entry')
    await expect(entry).toHaveCount(1)
    await expect(entry).toContainText(
      /after the agent's compaction 1 \(message 28, manual, 24,376 tokens\): it repeated 2 tool calls \(Read, Bash\): [\d,]+ tokens/,
    )
    const calls = entry.getByTestId('rework-call')
    await expect(calls).toHaveCount(2)
    await expect(calls.nth(0)).toContainText(/^Read \{"file_path":".*\/data\/carriers\.csv"\} at #31 — made before at #9, its result #10 summarized/)
    await expect(calls.nth(1)).toContainText(/^Bash \{"command":"ls -la",.*\} at #34 — made before at #12, its result #13 summarized/)
    // A message number is a link into Before | After.
    await calls.nth(0).getByRole('button', { name: '#31' }).click()
    await expect(page.getByTestId('before-column').locator('[role="row"][aria-selected="true"]')).toHaveCount(1)
  })

  await test.step('OpenAI chat fixture: pass 1 of summarize folds the first read, the agent reads the file again', async () => {
    await page.getByLabel('Open transcript').setInputFiles('test/fixtures/rework/openai-chat-reread-after-summarize.json')
    await expect(page.getByTestId('file-format')).toHaveText('openai-chat')
    await expect(page.getByTestId('loading')).toHaveCount(0)
    // keep 4, compact after 10: pass 1 fires at the turn end #14 and folds #1–#10.
    await page.getByRole('spinbutton', { name: 'summarize keep_last value' }).fill('4')
    await page.getByRole('spinbutton', { name: 'summarize compact_after value' }).fill('10')
    await expect(list.locator('summary')).toHaveText(
      /^Re-work after compaction: 1 repeated tool call, 1 question asked again — [\d,]+ tokens$/,
    )
    if ((await list.getAttribute('open')) === null) await list.locator('summary').click()
    const entry = list.getByTestId('rework-entry')
    await expect(entry).toHaveCount(1)
    await expect(entry).toContainText(/after pass 1 of summarize at message 14: it repeated 1 tool call \(read_file\) and was asked 1 question again/)
    await expect(entry.getByTestId('rework-call')).toContainText(/^read_file \{"path":"src\/settings\.py"\} at #16 — made before at #2, its result #3 summarized/)
    await expect(entry.getByTestId('rework-question')).toContainText(
      /^asked again at #15: .*what is the default port in settings\.py again\?.* — answered before at #6/,
    )
  })
  expect(errors).toEqual([])
})

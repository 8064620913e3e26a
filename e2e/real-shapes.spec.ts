import { expect, test } from '@playwright/test'
import { openApp, rows, watchErrors } from './helpers'

/**
 * Shapes people have on disk that the page once rejected ("unknown format"), opened through the
 * file input as a person does. Message counts are the opened conversation's, as each fixture's
 * count test derives them from the file (src/engine/formats/*.test.ts).
 */
const SHAPES: { file: string; format: string; messages: number; more?: string }[] = [
  // The zip Inspect writes by default; sample 1 opens (1 system, 1 user, 4 assistant, 4 tool), sample 2 is listed.
  { file: 'inspect-ai-sample.eval', format: 'inspect-ai', messages: 10, more: 'sample 2 (epoch 1)' },
  // OpenHands evaluation output: the first instance's history (system, user, 3 assistant, 2 tool).
  { file: 'openhands-output.jsonl', format: 'openhands', messages: 7 },
  // SWE-agent demonstration holding only `history`: system, user, 4 × (assistant call, tool result).
  { file: 'swe-agent-history-only.traj', format: 'swe-agent', messages: 10 },
  // The same as YAML (`sweagent traj-to-demo`): system, user, 2 × (assistant call, tool result).
  { file: 'swe-agent-demo.demo.yaml', format: 'swe-agent', messages: 6 },
  // LangChain flat dicts (model_dump()): system, user, 2 assistant, 2 tool.
  { file: 'langchain-model-dump.json', format: 'langchain', messages: 6 },
  // LangGraph state {messages: [...]}: 2 user, 2 assistant, 1 tool.
  { file: 'langchain-langgraph-state.json', format: 'langchain', messages: 5 },
  // Claude Code web export {"loglines": [...]}: 1 user, 3 assistant, 3 tool results.
  { file: 'claude-code-web-loglines.json', format: 'claude-code', messages: 7 },
  // GitHub Copilot CLI events: 2 user, 5 assistant, 5 tool.
  { file: 'copilot-cli-session.jsonl', format: 'copilot-cli', messages: 12 },
  // ChatGPT conversations.json: the first conversation's current branch (system, 2 user, 3 assistant, 1 tool).
  { file: 'chatgpt-conversations.json', format: 'chatgpt-export', messages: 7 },
  // A single API response object: its one assistant message (the request is not in the file).
  { file: 'openai-chat-completion-response.json', format: 'openai-chat', messages: 1 },
  { file: 'anthropic-message-response.json', format: 'anthropic-messages', messages: 1 },
  // OpenHands V1 events (system, 2 user, 6 assistant, 6 tool) and the same conversation's folder, zipped.
  { file: 'openhands-v1-events.json', format: 'openhands', messages: 15 },
  { file: 'openhands-v1-conversation.zip', format: 'openhands', messages: 15 },
  // OpenHands resolver output: the first issue (user, recalled workspace context, 4 assistant, 4 tool), the second listed.
  { file: 'openhands-resolver-output.jsonl', format: 'openhands', messages: 10, more: 'tallyhq/ledger#415' },
  // Request + response logs: the request's 4 messages and the response's message.
  { file: 'openhands-completion-log.json', format: 'openai-chat', messages: 5 },
  { file: 'anthropic-request-response.json', format: 'anthropic-messages', messages: 5 },
]

test('shapes once rejected open in the page with their messages', async ({ page }) => {
  test.setTimeout(60_000 + SHAPES.length * 30_000)
  const errors = watchErrors(page)
  await openApp(page)
  for (const shape of SHAPES) {
    await test.step(shape.file, async () => {
      await page.getByLabel('Open transcript').setInputFiles(`test/fixtures/formats/${shape.file}`)
      await expect(page.getByTestId('file-info')).toContainText(shape.file)
      await expect(page.getByTestId('file-format')).toHaveText(shape.format)
      await expect(page.getByTestId('loading')).toHaveCount(0)
      await expect(page.getByTestId('import-error')).toHaveCount(0)
      await expect(page.getByTestId('run-error')).toHaveCount(0)
      await expect(page.getByTestId('message-count')).toHaveText(shape.messages === 1 ? '1 message' : `${shape.messages} messages`)
      await expect(rows(page, 'before').first()).toBeVisible()
      if (shape.more) await expect(page.getByRole('option', { name: shape.more })).toHaveCount(1)
    })
  }
  expect(errors).toEqual([])
})

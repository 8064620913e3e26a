import { describe, expect, it } from 'vitest'
import { main } from './main'

/** OpenCode's storage as a folder (test/fixtures/opencode-storage: three sessions). */
const STORAGE = new URL('../../test/fixtures/opencode-storage', import.meta.url).pathname

describe('cli: a folder of OpenCode storage', () => {
  it('inspect reads the folder as one input: the newest main session, the others listed', async () => {
    let stdout = ''
    let stderr = ''
    const code = await main(['inspect', STORAGE], (s) => (stdout += s + '\n'), (s) => (stderr += s + '\n'))
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(stdout).toContain(`${STORAGE}: opencode — Fix broken links`)
    expect(stdout).toMatch(/^tool calls {12}2$/m)
    expect(stdout).toMatch(/^conversations {9}3$/m)
  })
})

import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../../test/cli'

/** A ChatGPT export of three conversations (2, 4 and 2 messages), ids ending aa01–aa03. */
const FILE = join(__dirname, '../../test/fixtures/cli/chatgpt-three-conversations.json')
const ID = (n: number) => `68a1c2d3-000${n}-8000-9000-00000000aa0${n}`

describe('--conversation: every conversation of a file is reachable', () => {
  it('inspect lists the conversations: index, id, title, messages, which is open', async () => {
    const { code, stdout, stderr } = await runCli(['inspect', FILE, '--json'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(JSON.parse(stdout).conversations).toEqual([
      { index: 0, id: ID(1), title: 'Porch lamp schedule', messages: 2, open: true },
      { index: 1, id: ID(2), title: 'Fade curves', messages: 4 },
      { index: 2, id: ID(3), title: 'Preset file names', messages: 2 },
    ])
    const text = await runCli(['inspect', FILE])
    // An export's other conversations are not sub-agents: counted as conversations, the open one included.
    expect(text.stdout.split('\n').filter((l) => /^sidechains|^conversations|^ {2}\d/.test(l))).toEqual([
      'conversations         3',
      `  0  Porch lamp schedule [${ID(1)}]: 2 messages (open)`,
      `  1  Fade curves [${ID(2)}]: 4 messages`,
      `  2  Preset file names [${ID(3)}]: 2 messages`,
    ])
  })

  it.each([
    ['1', 'Fade curves', 4, 1],
    [ID(3), 'Preset file names', 2, 2],
    ['Fade curves', 'Fade curves', 4, 1],
    ['0', 'Porch lamp schedule', 2, 0],
  ])('--conversation %s opens %s', async (which, title, messages, index) => {
    const { code, stdout, stderr } = await runCli(['inspect', FILE, '--conversation', which, '--json'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const out = JSON.parse(stdout)
    expect([out.title, out.messages]).toEqual([title, messages])
    expect(out.conversations.filter((c: { open?: boolean }) => c.open).map((c: { index: number }) => c.index)).toEqual([
      index,
    ])
  })

  it('the commands that run the pipeline take it too', async () => {
    const { code, stdout } = await runCli(['export', FILE, '--conversation', '2', '--to', 'openai-chat'])
    expect(code).toBe(0)
    expect(stdout).toContain('Why is dusk.toml ignored?')
    expect(stdout).not.toContain('porch lamp')
  })

  it('a conversation the file does not have is a usage error naming what it has', async () => {
    const { code, stderr } = await runCli(['inspect', FILE, '--conversation', '3'])
    expect(code).toBe(2)
    expect(stderr.split('\n')[0]).toBe(
      `error: --conversation 3: ${FILE} has 3 conversations: give an index 0–2, or an id or a title as inspect lists them`,
    )
  })

  it('a file of one conversation has only 0', async () => {
    const one = join(__dirname, '../../public/samples/openai-chat.json')
    expect((await runCli(['inspect', one, '--conversation', '0', '--json'])).code).toBe(0)
    expect((await runCli(['inspect', one, '--conversation', '1'])).code).toBe(2)
  })
})

/**
 * Names that come from input (sweep axes, chat roles, serialized class names) are
 * looked up as own properties only: `constructor`, `__proto__`, `toString` and `hasOwnProperty`
 * name nothing, exactly like any other unknown name.
 */
import { describe, expect, it } from 'vitest'
import { parseSweepAxis, sweepParamOf } from './analysis/sweep-params'
import { importTranscript } from './formats/index'

const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty']

describe('own-property lookups of names from input', () => {
  it.each(PROTOTYPE_NAMES)('sweep axis %s is an unknown parameter', (name) => {
    expect(sweepParamOf(name)).toBeUndefined()
    const parsed = parseSweepAxis(`${name}=1..3`)
    expect(parsed.ok).toBe(false)
    if (!parsed.ok) expect(parsed.error.startsWith(`unknown parameter "${name}"; one of: `)).toBe(true)
  })

  it.each(PROTOTYPE_NAMES)('an OpenAI chat message with role %s is skipped as not a chat role', (role) => {
    const text = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }, { role, content: 'x' }, { role: 'assistant', content: 'ok' }] })
    const imported = importTranscript(text, { fileName: 'chat.json' })
    expect(imported.ok).toBe(true)
    if (!imported.ok) return
    expect(imported.transcript.messages.map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(imported.transcript.warnings).toContain(`messages[1].role: "${role}" is not a chat role, skipped`)
  })

  it.each(PROTOTYPE_NAMES)('a serialized LangChain message of class %s is not a message', (cls) => {
    const msg = (c: string, content: string) => ({ lc: 1, type: 'constructor', id: ['langchain', 'schema', 'messages', c], kwargs: { content } })
    const text = JSON.stringify([msg('HumanMessage', 'hi'), msg(cls, 'x'), msg('AIMessage', 'ok')])
    const imported = importTranscript(text, { fileName: 'lc.json' })
    if (imported.ok) expect(imported.transcript.messages.map((m) => m.role)).toEqual(['user', 'assistant'])
    else expect(imported.error.message).not.toMatch(/TypeError|is not a function/)
  })
})

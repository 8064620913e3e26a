import { describe, expect, it } from 'vitest'
import { perMessage } from './memo'
import type { Message } from '../model'

const msg = (content: string): Message => ({ id: 'm', index: 0, role: 'user', content, source: { format: 'canonical' } })

describe('perMessage', () => {
  it('derives once per message object, and again for an equal but other object', () => {
    let calls = 0
    const length = perMessage((m) => {
      calls++
      return typeof m.content === 'string' ? m.content.length : 0
    })
    const a = msg('hello')
    expect(length(a)).toBe(5)
    expect(length(a)).toBe(5)
    expect(calls).toBe(1)
    expect(length(msg('hello'))).toBe(5)
    expect(calls).toBe(2)
  })

  it('remembers an undefined result too', () => {
    let calls = 0
    const nothing = perMessage(() => {
      calls++
      return undefined
    })
    const a = msg('x')
    nothing(a)
    nothing(a)
    expect(calls).toBe(1)
  })
})

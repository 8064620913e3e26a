import { describe, expect, it } from 'vitest'
import { loadCase } from '../../../test/fixtures'
import type { Message } from '../model'
import {
  BACK_REFERENCE_PREFIX,
  MIN_LENGTH,
  SUMMARY_LIMIT,
  backReferenceFor,
  backReferenceSummary,
  dedupe,
  isBackReferenceText,
  summarizeToolOutput,
} from './dedupe'
import {
  assistant,
  countCodePoints,
  countWords,
  deepFreeze,
  fromCaseChat,
  indexed,
  makeContext,
  toolResult,
  user,
  type CaseChatMessage,
} from './test-helpers'

const loadChatCase = (name: string) => loadCase<{ input: CaseChatMessage[] }>(name)

/** A call + its result, as a 2-message step. */
function step(n: number, text: string, toolName = 'read_file'): Message[] {
  return [
    assistant(`a${n}`, null, [{ id: `call_${n}`, name: toolName }]),
    toolResult(`t${n}`, `call_${n}`, text, toolName),
  ]
}

function isWellFormed(s: string): boolean {
  return (s as unknown as { isWellFormed(): boolean }).isWellFormed()
}

describe('dedupe constants (seed 000)', () => {
  it('are the seed values', () => {
    expect(MIN_LENGTH).toBe(200)
    expect(SUMMARY_LIMIT).toBe(160)
    expect(BACK_REFERENCE_PREFIX).toBe(
      '[repeated tool output — byte-identical to an earlier result in this conversation; One-line summary: ',
    )
  })

  it('the prefix is 100 code points, so a back-reference is 101 + summary code points', () => {
    // "[repeated tool output — byte-identical to an earlier result " = 60, the rest = 40.
    expect([...BACK_REFERENCE_PREFIX].length).toBe(100)
    expect([...backReferenceFor('abc')].length).toBe(104)
  })
})

describe('dedupe', () => {
  const body = 'HEADER: catalog page 1\n' + 'item row\n'.repeat(40)

  it('keeps the first occurrence and back-references a byte-identical repeat, exact text', () => {
    const input = indexed([user('u', 'list the catalog'), ...step(1, body), ...step(2, body)])
    const out = dedupe(input)
    expect(out.changed).toBe(true)
    expect(out.messages[2]).toBe(input[2])
    expect(out.messages[4]!.content).toBe(
      '[repeated tool output — byte-identical to an earlier result in this conversation; One-line summary: HEADER: catalog page 1]',
    )
    expect(out.fates).toEqual({ t2: { kind: 'back-referenced', stage: 'dedupe', firstId: 't1' } })
    expect(out.origins).toEqual({
      t2: { kind: 'back-reference', beforeId: 't2', firstId: 't1', stage: 'dedupe' },
    })
    expect(out.passes).toEqual([])
    expect(out.error).toBeUndefined()
  })

  it('a replaced message keeps id, role, toolCallId, toolName and its other fields', () => {
    const repeat: Message = { ...toolResult('t2', 'call_2', body, 'search'), isError: true, index: 3 }
    const out = dedupe([toolResult('t1', 'call_1', body, 'search'), repeat])
    const replaced = out.messages[1]!
    expect(replaced).toEqual({ ...repeat, content: backReferenceFor('HEADER: catalog page 1') })
    expect(replaced).not.toBe(repeat)
  })

  it('every later repeat points at the first occurrence; distinct outputs are kept', () => {
    const other = 'HEADER: catalog page 2\n' + 'other row\n'.repeat(40)
    const input = indexed([...step(1, body), ...step(2, other), ...step(3, body), ...step(4, other), ...step(5, body)])
    const out = dedupe(input)
    expect(out.fates).toEqual({
      t3: { kind: 'back-referenced', stage: 'dedupe', firstId: 't1' },
      t4: { kind: 'back-referenced', stage: 'dedupe', firstId: 't2' },
      t5: { kind: 'back-referenced', stage: 'dedupe', firstId: 't1' },
    })
    expect(out.messages[7]!.content).toBe(backReferenceFor('HEADER: catalog page 2'))
    expect(out.messages.length).toBe(input.length)
  })

  it('outputs of the same length but other bytes are distinct; each repeat finds its own first', () => {
    // Same code-point length, one character apart: only their SHA-256 tells them apart.
    const a = 'HEADER: page A\n' + 'row\n'.repeat(60)
    const b = 'HEADER: page B\n' + 'row\n'.repeat(60)
    expect([...a].length).toBe([...b].length)
    const out = dedupe(indexed([...step(1, a), ...step(2, b), ...step(3, b), ...step(4, a)]))
    expect(out.fates).toEqual({
      t3: { kind: 'back-referenced', stage: 'dedupe', firstId: 't2' },
      t4: { kind: 'back-referenced', stage: 'dedupe', firstId: 't1' },
    })
    expect(out.messages[5]!.content).toBe(backReferenceFor('HEADER: page B'))
    expect(out.messages[7]!.content).toBe(backReferenceFor('HEADER: page A'))
  })

  it('dedupes exact matches only: a trailing newline makes a different output', () => {
    const out = dedupe(indexed([...step(1, body), ...step(2, body + '\n')]))
    expect(out.changed).toBe(false)
  })

  describe('MIN_LENGTH counts code points, not UTF-16 units', () => {
    // Summary "ok" → the back-reference is 103 code points, shorter than either body.
    const astral199 = 'ok\n' + '😀'.repeat(196) // 2 + 1 + 196 = 199 code points, 395 UTF-16 units
    const astral200 = 'ok\n' + '😀'.repeat(197) // 200 code points

    it('199 code points is not a candidate (even though it is 395 UTF-16 units)', () => {
      expect(astral199.length).toBe(395)
      const input = indexed([...step(1, astral199), ...step(2, astral199)])
      const out = dedupe(input)
      expect(out.changed).toBe(false)
      expect(out.messages).toBe(input)
    })

    it('200 code points is a candidate', () => {
      const out = dedupe(indexed([...step(1, astral200), ...step(2, astral200)]))
      expect(out.messages[3]!.content).toBe(
        '[repeated tool output — byte-identical to an earlier result in this conversation; One-line summary: ok]',
      )
    })
  })

  describe('replaces only when the back-reference is strictly shorter (the 200–261 band)', () => {
    it('a single 261-char line: summary 160 → back-reference 261, not shorter, kept', () => {
      const text = 'a'.repeat(261)
      const out = dedupe(indexed([...step(1, text), ...step(2, text)]))
      expect(out.changed).toBe(false)
    })

    it('a single 262-char line: back-reference 261 < 262, replaced', () => {
      const text = 'a'.repeat(262)
      const out = dedupe(indexed([...step(1, text), ...step(2, text)]))
      expect(out.messages[3]!.content).toBe(`${BACK_REFERENCE_PREFIX}${'a'.repeat(160)}]`)
    })

    it('with a 150-code-point astral first line the crossover is 251 kept / 252 replaced', () => {
      // Back-reference = 101 + 150 = 251 code points (401 UTF-16 units).
      const head = '😀'.repeat(150)
      const make = (total: number) => `${head}\n${'😀'.repeat(total - 151)}`
      const kept = make(251)
      const replaced = make(252)
      expect(dedupe(indexed([...step(1, kept), ...step(2, kept)])).changed).toBe(false)
      const out = dedupe(indexed([...step(1, replaced), ...step(2, replaced)]))
      expect(out.messages[3]!.content).toBe(`${BACK_REFERENCE_PREFIX}${head}]`)
    })

    it('a long body under a short first line is always replaced', () => {
      const text = 'short\n' + 'b'.repeat(194) // 200 code points, back-reference 106
      const out = dedupe(indexed([...step(1, text), ...step(2, text)]))
      expect(out.messages[3]!.content).toBe(`${BACK_REFERENCE_PREFIX}short]`)
    })
  })

  it('with a ctx, keeps a repeat whose back-reference would be more tokens (never grows tokens)', () => {
    // 262 × "a" is 1 word; its back-reference is 15 words (14 in the prefix + "a…a]").
    const text = 'a'.repeat(262)
    const input = indexed([...step(1, text), ...step(2, text)])
    expect(dedupe(input, {}, makeContext(countWords)).changed).toBe(false)
    expect(dedupe(input, {}, makeContext(countCodePoints)).changed).toBe(true)
    // A prose body is far more words than its back-reference: replaced under both counters.
    const out = dedupe(indexed([...step(1, body), ...step(2, body)]), {}, makeContext(countWords))
    expect(out.messages[3]!.content).toBe(backReferenceFor('HEADER: catalog page 1'))
  })

  it('leaves Part[] tool content untouched even when identical', () => {
    const parts = (id: string, callId: string): Message => ({
      ...toolResult(id, callId, ''),
      content: [{ type: 'text', text: body }],
    })
    const input = indexed([parts('t1', 'c1'), parts('t2', 'c2')])
    const out = dedupe(input)
    expect(out.changed).toBe(false)
    expect(out.messages).toBe(input)
  })

  it('leaves non-tool messages untouched even when identical', () => {
    const input = indexed([user('u1', body), assistant('a1', body), user('u2', body), assistant('a2', body)])
    const out = dedupe(input)
    expect(out.changed).toBe(false)
    expect(out.messages).toBe(input)
  })

  it('summary: an empty first line gives the first non-empty line, trimmed', () => {
    const text = '\n   \n  second line here  \n' + 'z'.repeat(250)
    expect(summarizeToolOutput(text)).toBe('second line here')
    const out = dedupe(indexed([...step(1, text), ...step(2, text)]))
    expect(out.messages[3]!.content).toBe(`${BACK_REFERENCE_PREFIX}second line here]`)
  })

  it('summary: an all-blank output gives an empty summary', () => {
    const text = ' \n'.repeat(150) // 300 code points, back-reference 101
    const out = dedupe(indexed([...step(1, text), ...step(2, text)]))
    expect(out.messages[3]!.content).toBe(`${BACK_REFERENCE_PREFIX}]`)
  })

  it('no change: changed false, the input array itself, a note', () => {
    const input = indexed([user('u', 'hi'), ...step(1, body), ...step(2, 'short')])
    const out = dedupe(input)
    expect(out.changed).toBe(false)
    expect(out.messages).toBe(input)
    expect(out.fates).toEqual({})
    expect(out.origins).toEqual({})
    expect(out.note).toBe('no repeated tool output long enough to shorten')
  })

  it('never mutates its input and is deterministic', () => {
    const input = deepFreeze(indexed([...step(1, body), ...step(2, body), ...step(3, body)]))
    const a = dedupe(input)
    const b = dedupe(input)
    expect(a).toEqual(b)
    expect(input[3]!.content).toBe(body)
  })

  it('back-reference helpers recognise only the exact shape', () => {
    const ref = backReferenceFor('HEADER: x')
    expect(isBackReferenceText(ref)).toBe(true)
    expect(backReferenceSummary(ref)).toBe('HEADER: x')
    expect(isBackReferenceText(`${ref} trailing`)).toBe(false)
    expect(isBackReferenceText(['not a string'])).toBe(false)
    expect(backReferenceSummary('see above')).toBeUndefined()
  })

  it('cases/36: the summary cap keeps the whole emoji at code points 159 and result is well-formed', () => {
    const input = fromCaseChat(loadChatCase('36-dedupe-cap-surrogate-safe.json').input)
    const out = dedupe(input)
    // First line: 159 × "x", "🔥", " build failed on step 3" (183 code points) → cut at 160.
    const expected = `${BACK_REFERENCE_PREFIX}${'x'.repeat(159)}🔥]`
    expect(out.messages[5]!.content).toBe(expected)
    expect(out.fates).toEqual({ m5: { kind: 'back-referenced', stage: 'dedupe', firstId: 'm3' } })
    expect(out.messages[5]!.toolCallId).toBe('call_b2')
    expect(isWellFormed(expected)).toBe(true)
    expect(JSON.parse(JSON.stringify(expected))).toBe(expected)
    expect(new TextDecoder().decode(new TextEncoder().encode(expected))).toBe(expected)
  })

  it('cases/36: a cut that would land inside a surrogate pair keeps 159 units or the whole pair', () => {
    // Cap lands exactly between the high and low surrogate in UTF-16 units (160 units in).
    const line = 'y'.repeat(159) + '🔥' + 'tail'
    const summary = summarizeToolOutput(line)
    expect(isWellFormed(summary)).toBe(true)
    expect(summary).toBe('y'.repeat(159) + '🔥')
  })

  it('cases/47: the repeated config read becomes a marked back-reference to the first read', () => {
    const input = fromCaseChat(loadChatCase('47-dedupe-backref-marked-and-not-dangling.json').input)
    const out = dedupe(input)
    expect(out.messages[7]!.content).toBe(`${BACK_REFERENCE_PREFIX}setting_0: value_0]`)
    expect(out.messages[7]!.toolCallId).toBe('call_y3')
    expect(out.messages[7]!.toolName).toBe('read_file')
    expect(out.origins).toEqual({
      m7: { kind: 'back-reference', beforeId: 'm7', firstId: 'm3', stage: 'dedupe' },
    })
    // Nothing but m7 changed.
    out.messages.forEach((m, i) => {
      if (i !== 7) expect(m).toBe(input[i])
    })
  })
})

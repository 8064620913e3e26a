import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Message, RunResult } from '../engine/model'
import { PROBLEMS_SENT } from './protocol'
import { buildMessageDetail, buildRunView, estimatedBeforeRows, imageLabel, previewOf } from './view'

function msg(id: string, index: number, role: Message['role'], content: Message['content'], extra: Partial<Message> = {}): Message {
  return { id, index, role, content, source: { format: 'canonical' }, ...extra }
}

describe('previewOf', () => {
  it('collapses whitespace', () => {
    expect(previewOf(msg('a', 0, 'user', '  hello \n\n  world\t!  '))).toBe('hello world !')
  })

  it('renders a tool-calling assistant without text as (tool calls: a, b)', () => {
    const m = msg('a', 0, 'assistant', null, {
      toolCalls: [
        { id: 'c1', name: 'Read', arguments: '{}' },
        { id: 'c2', name: 'Grep', arguments: '{}' },
      ],
    })
    expect(previewOf(m)).toBe('(tool calls: Read, Grep)')
  })

  it('drops terminal styling sequences and shows other control characters as control pictures', () => {
    expect(previewOf(msg('a', 0, 'tool', '\u001b[2mCompacted\u001b[22m (ctrl+o)'))).toBe('Compacted (ctrl+o)')
    expect(previewOf(msg('a', 0, 'tool', 'bell\u0007 esc\u001b end'))).toBe('bell␇ esc␛ end')
  })

  it('reads (empty) for no content', () => {
    expect(previewOf(msg('a', 0, 'assistant', ''))).toBe('(empty)')
  })

  it('cuts to 200 code points including the ellipsis, never splitting a surrogate pair', () => {
    // 300 astral characters: 600 UTF-16 units, 300 code points.
    const preview = previewOf(msg('a', 0, 'user', '😀'.repeat(300)))
    expect([...preview].length).toBe(200)
    expect(preview).toBe(`${'😀'.repeat(199)}…`)
  })

  it('keeps a text of exactly 200 code points whole', () => {
    const text = 'x'.repeat(200)
    expect(previewOf(msg('a', 0, 'user', text))).toBe(text)
  })

  it('previews a long text from its head exactly as from the whole text', () => {
    // The whole-text rule, written out: trim, whitespace runs → one space, CSI sequences removed,
    // other C0 controls (but tab/newline/CR, gone with whitespace) as control pictures, then cut.
    const whole = (text: string) => {
      let t = text
        .trim()
        .replace(/\s+/g, ' ')
        // eslint-disable-next-line no-control-regex -- control characters are the subject
        .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')
        // eslint-disable-next-line no-control-regex
        .replace(/[\u0000-\u0008\u000e-\u001f]/g, (c) => String.fromCharCode(0x2400 + c.charCodeAt(0)))
      if (!t) t = '(empty)'
      const points = [...t]
      return points.length > 200 ? `${points.slice(0, 199).join('')}…` : t
    }
    // Pieces that stress the head's edge: whitespace runs, CSI sequences with long parameter runs,
    // lone escapes, astral characters, CJK.
    const piece = fc.oneof(
      fc.constantFrom(' ', '\n\n', '\t', '   ', 'word', '😀', '漢字', '\u001b', '\u001b[', '\u0007', 'm', ';', '1'),
      fc.integer({ min: 1, max: 3000 }).map((n) => ' '.repeat(n)),
      fc.integer({ min: 1, max: 3000 }).map((n) => `\u001b[${'1;'.repeat(n)}m`),
      fc.integer({ min: 1, max: 400 }).map((n) => 'ab '.repeat(n)),
    )
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 80 }), (pieces) => {
        const text = pieces.join('')
        expect(previewOf(msg('p', 0, 'user', text))).toBe(whole(text))
      }),
      { numRuns: 400 },
    )
    // A CSI sequence across the first head's end (1,600 code units) is removed whole, not shown
    // as ␛[0;0;… up to the cut.
    const cut = `start \u001b[${'0;'.repeat(2000)}1mend`
    expect(previewOf(msg('q', 0, 'user', cut))).toBe('start end')
    const late = `${'a b '.repeat(60)}${' '.repeat(5000)}tail`
    expect(previewOf(msg('r', 0, 'user', late))).toBe(whole(late))
  })

  it('shows images as a size label, never base64', () => {
    const m = msg('a', 0, 'user', [
      { type: 'text', text: 'see' },
      { type: 'image', url: 'data:image/png;base64,AAAA', bytes: 3 * 1024 },
    ])
    expect(previewOf(m)).toBe('see [image, 3 KB]')
  })
})

describe('imageLabel', () => {
  it('uses bytes under 1 KB, rounded KB above, nothing when unknown', () => {
    expect(imageLabel({ bytes: 72 })).toBe('[image, 72 B]')
    expect(imageLabel({ bytes: 1536 })).toBe('[image, 2 KB]')
    expect(imageLabel({})).toBe('[image]')
  })
})

describe('buildMessageDetail', () => {
  it('keeps thinking as text with a "signature kept" note and pretty-prints valid arguments', () => {
    const m = msg('a', 3, 'assistant', [
      { type: 'thinking', variant: 'thinking', text: 'plan', signature: 'sig' },
      { type: 'text', text: 'ok' },
    ], { toolCalls: [{ id: 'c1', name: 'Read', arguments: '{"path":"a.py"}' }, { id: 'c2', name: 'Bad', arguments: '{oops' }] })
    const d = buildMessageDetail(m, 'before')
    expect(d.blocks).toEqual([
      { kind: 'thinking', text: 'plan', note: 'signature kept' },
      { kind: 'text', text: 'ok' },
    ])
    expect(d.toolCalls).toEqual([
      { id: 'c1', name: 'Read', arguments: '{\n  "path": "a.py"\n}' },
      { id: 'c2', name: 'Bad', arguments: '{oops' },
    ])
  })
})

describe('buildRunView', () => {
  // Before: sys, u1, a1, t1 (repeat), u2. After: sys, summary(u1,a1), back-ref of t1, u2.
  const before: Message[] = [
    msg('sys', 0, 'system', 'rules'),
    msg('u1', 1, 'user', 'goal'),
    msg('a1', 2, 'assistant', 'answer'),
    msg('t1', 3, 'tool', 'output', { toolCallId: 'c', toolName: 'Read' }),
    msg('u2', 4, 'user', 'next'),
  ]
  const after: Message[] = [
    before[0]!,
    msg('s1', 1, 'user', '[summary]'),
    msg('t1', 2, 'tool', '[repeated tool output]', { toolCallId: 'c', toolName: 'Read' }),
    before[4]!,
  ]
  const result: RunResult = {
    before: { messages: before, totals: { messages: 5, tokens: 50, overheadTokens: 4 }, tokensById: { sys: 4, u1: 10, a1: 10, t1: 20, u2: 6 } },
    after: { messages: after, totals: { messages: 4, tokens: 25, overheadTokens: 4 }, tokensById: { sys: 4, s1: 8, t1: 7, u2: 6 } },
    fates: {
      u1: { kind: 'summarized', stage: 'summarize', pass: 1, summaryId: 's1' },
      a1: { kind: 'summarized', stage: 'summarize', pass: 1, summaryId: 's1' },
      t1: { kind: 'back-referenced', stage: 'dedupe', firstId: 't0' },
    },
    origins: {
      s1: { kind: 'summary', stage: 'summarize', pass: 1, fromIndex: 1, toIndex: 2, coveredIds: ['u1', 'a1'] },
      t1: { kind: 'back-reference', beforeId: 't1', firstId: 't0', stage: 'dedupe' },
    },
    passes: [
      { pass: 1, stage: 'summarize', atMessage: 2, from: 1, upto: 3, prompt: 'PROMPT', summary: '[summary]', summaryId: 's1', tokensBefore: 30, tokensAfter: 18 },
    ],
    stages: [],
    checks: { before: [], after: [] },
    warnings: [],
  }
  const view = buildRunView(result, 7, 'cl100k_base')

  it('maps each before row to the after row(s) that carry it', () => {
    expect(view.before.rows.map((r) => [r.id, r.counterpartIds])).toEqual([
      ['sys', ['sys']],
      ['u1', ['s1']],
      ['a1', ['s1']],
      ['t1', ['t1']],
      ['u2', ['u2']],
    ])
  })

  it('maps each after row to its before id(s), and defaults a missing origin to original', () => {
    expect(view.after.rows.map((r) => [r.id, r.origin?.kind, r.counterpartIds])).toEqual([
      ['sys', 'original', ['sys']],
      ['s1', 'summary', ['u1', 'a1']],
      ['t1', 'back-reference', ['t1']],
      ['u2', 'original', ['u2']],
    ])
  })

  it('carries tokens, fates, run id, encoding and passes without their prompts', () => {
    expect(view.runId).toBe(7)
    expect(view.encoding).toBe('cl100k_base')
    expect(view.before.rows.map((r) => r.tokens)).toEqual([4, 10, 10, 20, 6])
    expect(view.before.rows[0]?.fate).toEqual({ kind: 'kept', changed: false })
    expect(view.after.rows.map((r) => r.index)).toEqual([0, 1, 2, 3])
    expect(view.passes).toEqual([
      { pass: 1, stage: 'summarize', atMessage: 2, from: 1, upto: 3, summary: '[summary]', summaryId: 's1', tokensBefore: 30, tokensAfter: 18, promptLength: 6, summaryLength: 9 },
    ])
    expect(structuredClone(view)).toEqual(view)
  })

  it('carries the run’s calibration (how its figures were counted), and none for a result without one', () => {
    expect(view.calibration).toBeUndefined()
    const calibration = { source: 'usage' as const, overhead: 12_000, ratio: 1.25, medianError: 0.004, requests: 6 }
    expect(buildRunView({ ...result, calibration }, 8, 'o200k_base').calibration).toEqual(calibration)
  })

  it('sends the first PROBLEMS_SENT validity problems of each side and, when it cut, how many each side has', () => {
    const problem = (i: number) => ({ rule: 'orphan-tool-result' as const, messageIds: [`t${i}`], message: `result t${i} answers no call` })
    const many = Array.from({ length: PROBLEMS_SENT + 50 }, (_, i) => problem(i))
    const v = buildRunView({ ...result, checks: { before: many, after: [problem(0)] } }, 9, 'o200k_base')
    expect(v.checks.before).toEqual(many.slice(0, PROBLEMS_SENT))
    expect(v.checks.after).toEqual([problem(0)])
    expect(v.checks.problemCounts).toEqual({ before: PROBLEMS_SENT + 50, after: 1 })
    // Nothing cut: no counts, the lists' lengths are the counts.
    expect(view.checks.problemCounts).toBeUndefined()
  })

  it('lists the later back-references of an original tool output among its counterparts', () => {
    // t0 is the first occurrence (kept), t1 and t2 repeat it and become back-references to t0.
    const b: Message[] = [
      msg('t0', 0, 'tool', 'out', { toolCallId: 'c0', toolName: 'Read' }),
      msg('t1', 1, 'tool', 'out', { toolCallId: 'c1', toolName: 'Read' }),
      msg('t2', 2, 'tool', 'out', { toolCallId: 'c2', toolName: 'Read' }),
    ]
    const a: Message[] = [b[0]!, msg('t1', 1, 'tool', '[ref]'), msg('t2', 2, 'tool', '[ref]')]
    const v = buildRunView(
      {
        ...result,
        before: { ...result.before, messages: b, tokensById: {} },
        after: { ...result.after, messages: a, tokensById: {} },
        fates: {
          t1: { kind: 'back-referenced', stage: 'dedupe', firstId: 't0' },
          t2: { kind: 'back-referenced', stage: 'dedupe', firstId: 't0' },
        },
        origins: {
          t1: { kind: 'back-reference', beforeId: 't1', firstId: 't0', stage: 'dedupe' },
          t2: { kind: 'back-reference', beforeId: 't2', firstId: 't0', stage: 'dedupe' },
        },
        passes: [],
      },
      1,
      'o200k_base',
    )
    expect(v.before.rows.map((r) => [r.id, r.counterpartIds])).toEqual([
      ['t0', ['t0', 't1', 't2']],
      ['t1', ['t1']],
      ['t2', ['t2']],
    ])
  })
})

describe('estimatedBeforeRows (B10: rows before exact counts)', () => {
  it('estimates UTF-8 bytes / 3.4, rounded up, of text, thinking, tool-call names and arguments', () => {
    const rows = estimatedBeforeRows([
      // 17 ASCII bytes → 17 / 3.4 = 5 tokens exactly.
      msg('a', 0, 'user', 'abcdefghijklmnopq'),
      // 'é' is 2 bytes, '€' 3, '😀' 4 (a surrogate pair): 9 bytes → ceil(2.65) = 3.
      msg('b', 1, 'assistant', [
        { type: 'text', text: 'é€' },
        { type: 'thinking', variant: 'thinking', text: '😀' },
      ]),
      // name 'Read' (4) + arguments '{}' (2) = 6 bytes → ceil(1.76) = 2; null content adds nothing.
      msg('c', 2, 'assistant', null, { toolCalls: [{ id: 'c1', name: 'Read', arguments: '{}' }] }),
    ])
    expect(rows.map((r) => [r.id, r.tokens, r.estimated])).toEqual([
      ['a', 5, true],
      ['b', 3, true],
      ['c', 2, true],
    ])
    expect(rows[2]?.preview).toBe('(tool calls: Read)')
    expect(rows.every((r) => r.fate === undefined && r.counterpartIds.length === 0)).toBe(true)
  })

  it('stops at the limit', () => {
    const messages = [0, 1, 2, 3].map((i) => msg(`m${i}`, i, 'user', 'x'))
    expect(estimatedBeforeRows(messages, 2).map((r) => r.id)).toEqual(['m0', 'm1'])
  })
})

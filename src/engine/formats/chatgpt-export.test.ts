import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { checkValidity } from '../analysis/checks'
import type { Transcript } from '../model'
import { detectFormat } from './detect'
import { importTranscript } from './index'
import { chatgptExportImporter } from './chatgpt-export'
import { registryContractViolations } from './test-helpers'

const fixture = readFileSync(
  new URL('../../../test/fixtures/formats/chatgpt-conversations.json', import.meta.url),
  'utf8',
)

function load(text: string, fileName = 'conversations.json'): Transcript {
  const r = importTranscript(text, { fileName })
  if (!r.ok) throw new Error(r.error.message)
  expect(r.transcript.format).toBe('chatgpt-export')
  return r.transcript
}

const count = (t: Transcript, role: string) => t.messages.filter((m) => m.role === role).length
const calls = (t: Transcript) => t.messages.reduce((n, m) => n + (m.toolCalls?.length ?? 0), 0)

type Msg = { role: string; content: unknown; name?: string; recipient?: string; metadata?: unknown }
/** A conversation whose mapping is a chain of the given messages under a null root. */
function chain(messages: Msg[], title = 'T') {
  const mapping: Record<string, unknown> = {
    root: { id: 'root', message: null, parent: null, children: messages.length > 0 ? ['n0'] : [] },
  }
  messages.forEach((m, i) => {
    mapping[`n${i}`] = {
      id: `n${i}`,
      parent: i === 0 ? 'root' : `n${i - 1}`,
      children: i + 1 < messages.length ? [`n${i + 1}`] : [],
      message: {
        id: `n${i}`,
        author: { role: m.role, name: m.name ?? null, metadata: {} },
        content: m.content,
        recipient: m.recipient ?? 'all',
        metadata: m.metadata ?? {},
        create_time: 1000 + i,
      },
    }
  })
  return { title, mapping, current_node: `n${messages.length - 1}`, create_time: 1, update_time: 2 }
}
const text = (s: string) => ({ content_type: 'text', parts: [s] })

describe('ChatGPT export importer', () => {
  it('imports the first conversation of the fixture on its current branch', () => {
    const t = load(fixture)
    expect(t.title).toBe('Shipping quote for ORD-58213')
    // Current branch: custom instructions (system, hidden), the edited user message, the code
    // to python + its output, thoughts + recap + answer (one assistant message), one more turn.
    expect(count(t, 'system')).toBe(1)
    expect(count(t, 'user')).toBe(2)
    expect(count(t, 'assistant')).toBe(3)
    expect(count(t, 'tool')).toBe(1)
    expect(calls(t)).toBe(1)
    expect(t.recordedCompactions).toEqual([])
    expect(t.model).toBe('gpt-4o')
    expect(checkValidity(t.messages)).toEqual([])
    expect(t.notes).toEqual([
      '2 conversations in this file: "Shipping quote for ORD-58213" is open; the other one is listed as a further conversation',
    ])
    expect(t.warnings).toEqual([
      '1 "reasoning_recap" message(s) skipped: UI labels, not model context',
      '1 branch(es) (edited messages or regenerated answers) are not on the current branch; ' +
        '2 message(s) there are listed as branches',
    ])
  })

  it('lists the pre-edit user message and its answer as a branch', () => {
    const t = load(fixture)
    expect(t.branches).toEqual([
      {
        id: 'a0000000-0000-4000-8000-0000000000u1',
        fromMessageId: 'a0000000-0000-4000-8000-0000000000c1',
        messageCount: 2,
        firstText: 'What does shipping order ORD-58213 (12 kg) to postal code 94107 cost?',
      },
    ])
    expect(t.messages[1]?.content).toMatch(/\(12\.5 kg\)/)
  })

  it('maps the python round trip to a call with a synthetic stable id and its result', () => {
    const t = load(fixture)
    const [system, , call, result, answer] = t.messages
    expect(system).toMatchObject({ role: 'system', flags: { injected: true } })
    expect(system?.content).toMatch(/^The user provided the following information about themselves\./)
    expect(call?.toolCalls).toEqual([
      {
        id: 'call_a0000000-0000-4000-8000-0000000000a2',
        name: 'python',
        arguments: 'weight_kg = 12.5\nrate_per_kg = 3.70\nround(weight_kg * rate_per_kg, 2)',
      },
    ])
    expect(result).toMatchObject({
      role: 'tool',
      toolCallId: 'call_a0000000-0000-4000-8000-0000000000a2',
      toolName: 'python',
      content: '46.25',
    })
    expect(result?.isError).toBeUndefined()
    expect(answer?.id).toBe('a0000000-0000-4000-8000-0000000000h1')
    expect(answer?.content).toEqual([
      {
        type: 'thinking',
        variant: 'reasoning',
        text: '**Checking the band**\n\n12.5 kg is inside 10–15 kg, so the per-kg rate applies to the whole weight.',
      },
      { type: 'text', text: '$46.25 — 12.5 kg × $3.70 per kg in the 10–15 kg band.' },
    ])
    // Imported twice, the same ids.
    expect(load(fixture).messages.map((m) => m.id)).toEqual(t.messages.map((m) => m.id))
  })

  it('offers the second conversation in the picker, titled, with its image', () => {
    const t = load(fixture)
    expect(t.sidechains).toHaveLength(1)
    const b = t.sidechains?.[0]
    expect(b?.title).toBe('Postal code on a parcel label')
    expect(b?.messages.map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(b?.messages[0]?.content).toEqual([
      { type: 'image', url: 'file-service://file-3kQx9LabelPhoto', bytes: 48213 },
      { type: 'text', text: 'Which postal code is on this label?' },
    ])
    expect(b?.branches ?? []).toEqual([])
    expect(b?.warnings).toEqual([])
    expect(checkValidity(b?.messages ?? [])).toEqual([])
  })

  it('joins a second reply of the same tool, flags failed runs and makes a reply to no call injected context', () => {
    const t = load(
      JSON.stringify([
        chain([
          { role: 'tool', name: 'myfiles_browser', content: { content_type: 'tether_browsing_display', result: 'All the files uploaded by the user have been fully loaded.', summary: '' } },
          { role: 'user', content: text('Draw a parcel, then compute 1/0') },
          { role: 'assistant', recipient: 'dalle.text2im', content: { content_type: 'code', language: 'json', text: '{"prompt":"a parcel"}' } },
          { role: 'tool', name: 'dalle.text2im', content: { content_type: 'multimodal_text', parts: [{ content_type: 'image_asset_pointer', asset_pointer: 'sediment://file_01', size_bytes: 9 }] } },
          { role: 'tool', name: 'dalle.text2im', content: text('DALL·E displayed 1 images.') },
          { role: 'assistant', recipient: 'python', content: { content_type: 'code', language: 'unknown', text: '1/0' } },
          { role: 'tool', name: 'python', content: { content_type: 'execution_output', text: 'ZeroDivisionError' }, metadata: { aggregate_result: { status: 'failed_with_in_kernel_exception', in_kernel_exception: { name: 'ZeroDivisionError' } } } },
          { role: 'assistant', content: text('Division by zero fails.') },
        ]),
      ]),
    )
    expect(t.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant'])
    expect(t.messages[0]).toMatchObject({
      role: 'system',
      flags: { injected: true },
      content: 'All the files uploaded by the user have been fully loaded.',
    })
    expect(t.messages[0]?.toolCallId).toBeUndefined()
    expect(t.messages[3]?.content).toEqual([
      { type: 'image', url: 'sediment://file_01', bytes: 9 },
      { type: 'text', text: 'DALL·E displayed 1 images.' },
    ])
    expect(t.messages[5]).toMatchObject({ toolCallId: 'call_n5', isError: true })
    // The system-run file loading answers no call: context, not an orphan result.
    expect(checkValidity(t.messages)).toEqual([])
    expect(t.warnings).toEqual([])
  })

  it('chatgpt-uploaded-file-instructions.json: instructions once, "files loaded" as context', () => {
    // Placeholder system (empty, dropped), custom instructions (content fields and the metadata
    // copy of the same text), user with an attached PDF, myfiles_browser "files loaded" (hidden,
    // answers no call), assistant answer.
    const t = load(
      readFileSync(
        new URL('../../../test/fixtures/formats/chatgpt-uploaded-file-instructions.json', import.meta.url),
        'utf8',
      ),
    )
    expect(t.messages.map((m) => m.role)).toEqual(['system', 'user', 'system', 'assistant'])
    expect(calls(t)).toBe(0)
    expect(count(t, 'tool')).toBe(0)
    const instructions = t.messages[0]?.content as string
    expect(instructions.match(/Preferred name: Jana/g)).toHaveLength(1)
    expect(instructions.match(/Antworte auf Deutsch und knapp\./g)).toHaveLength(1)
    expect(instructions).toMatch(/^The user provided the following information about themselves\./)
    expect(instructions).toMatch(/```Antworte auf Deutsch und knapp\.```$/)
    expect(t.messages[2]).toMatchObject({
      role: 'system',
      flags: { injected: true },
      content: "All the files uploaded by the user have been fully loaded. Searching won't provide additional information.",
    })
    expect(checkValidity(t.messages)).toEqual([])
    expect(t.warnings).toEqual([])
  })

  it('takes custom instructions from metadata only where the content fields are absent', () => {
    const ctx = (content: Record<string, unknown>) =>
      load(
        JSON.stringify([
          chain([
            {
              role: 'system',
              content: { content_type: 'user_editable_context', ...content },
              metadata: {
                is_user_system_message: true,
                user_context_message_data: { about_user_message: 'Jana, Leipzig', about_model_message: 'Kurz.' },
              },
            },
            { role: 'user', content: text('Hallo') },
          ]),
        ]),
      ).messages[0]?.content
    expect(ctx({})).toBe('Jana, Leipzig\n\nKurz.')
    expect(ctx({ user_profile: 'Profile: Jana, Leipzig' })).toBe('Profile: Jana, Leipzig\n\nKurz.')
    expect(ctx({ user_profile: 'Profile: Jana', user_instructions: 'Instr: Kurz.' })).toBe(
      'Profile: Jana\n\nInstr: Kurz.',
    )
  })

  it('reads one conversation object, skips unreadable ones and falls back without current_node', () => {
    const one = chain([{ role: 'user', content: text('hi') }, { role: 'assistant', content: text('hello') }], 'Solo')
    expect(load(JSON.stringify(one)).title).toBe('Solo')
    const { current_node: _gone, ...noCurrent } = one
    const t = load(JSON.stringify({ conversations: [{ title: 'broken', mapping: null, current_node: null }, noCurrent] }))
    expect(t.messages.map((m) => m.content)).toEqual(['hi', 'hello'])
    expect(t.warnings).toEqual([
      'conversations[0].mapping is not an object; skipped',
      'conversations[1].current_node is missing; the newest leaf is taken as the current branch',
    ])
    const r = importTranscript(JSON.stringify([{ title: 'x', mapping: {}, current_node: null }]))
    expect(r).toEqual({ ok: false, error: { message: '[0].mapping has no nodes', field: '[0].mapping' } })
  })

  it('a parent chain that loops is read up to the loop, with a warning naming it (never an endless walk)', () => {
    const conv = chain([
      { role: 'user', content: text('one') },
      { role: 'assistant', content: text('two') },
      { role: 'user', content: text('three') },
      { role: 'assistant', content: text('four') },
    ])
    // n1's parent becomes n3: walking up from n3 goes n3 → n2 → n1 → n3 …; n0, cut off from the
    // current branch, still hangs off the root and is listed as a branch (nothing lost).
    const mapping = conv.mapping as Record<string, { parent: string | null }>
    ;(mapping.n1 as { parent: string }).parent = 'n3'
    const t = load(JSON.stringify(conv))
    expect(t.messages.map((m) => m.content)).toEqual(['two', 'three', 'four'])
    expect(t.warnings).toEqual([
      'conversation.mapping: the parent chain of the current branch loops (node "n1" has an ancestor ' +
        'that is also its descendant); the current branch is read from the loop down',
      '1 branch(es) (edited messages or regenerated answers) are not on the current branch; ' +
        '1 message(s) there are listed as branches',
    ])
    expect(t.branches?.map((b) => [b.messageCount, b.firstText])).toEqual([[1, 'one']])
  })

  it('is detected as its format, and no bundled sample is taken for it', () => {
    expect(detectFormat(fixture)).toMatchObject({ ok: true, format: 'chatgpt-export' })
    expect(detectFormat(fixture, { fileName: 'conversations.json' })).toMatchObject({
      ok: true,
      format: 'chatgpt-export',
    })
    const dir = new URL('../../../public/samples/', import.meta.url)
    const gallery = JSON.parse(readFileSync(new URL('index.json', dir), 'utf8')) as { file: string; format: string }[]
    const own = new Set(gallery.filter((s) => s.format === 'chatgpt-export').map((s) => s.file))
    const samples = readdirSync(dir).filter((f) => f !== 'index.json' && !own.has(f))
    expect(samples.length).toBeGreaterThan(10)
    for (const file of samples) {
      const d = detectFormat(readFileSync(new URL(file, dir), 'utf8'), { fileName: file })
      expect(d.ok ? d.format : 'error', file).not.toBe('chatgpt-export')
    }
  })
})

it('meets the registry contract on its bundled sample', () => {
  const text = readFileSync(
    new URL('../../../public/samples/chatgpt-export-conversations.json', import.meta.url),
    'utf8',
  )
  expect(registryContractViolations(chatgptExportImporter, text)).toEqual([])
})

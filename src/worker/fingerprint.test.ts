import { describe, expect, it } from 'vitest'
import { importTranscript } from '../engine/formats'
import { transcriptFingerprint } from '../engine/formats/fingerprint'
import { createEngineApi } from './engine-api'

/** An OpenAI chat of our own (invented content). */
const CHAT = JSON.stringify({
  messages: [
    { role: 'user', content: 'Book the venue for 14 March, budget $2,400.' },
    { role: 'assistant', content: 'Booked: Hall B, 14 March.' },
  ],
})

describe('EngineApi.fingerprint', () => {
  it('is null before an import, then the fingerprint of the file opened (not of its name)', () => {
    const api = createEngineApi()
    expect(api.fingerprint()).toBeNull()
    const imported = importTranscript(CHAT, { fileName: 'venue.json' })
    if (!imported.ok) throw new Error('the chat did not import')
    expect(api.importText(CHAT, 'venue.json').ok).toBe(true)
    const first = api.fingerprint()
    expect(first).toBe(transcriptFingerprint(imported.transcript))
    expect(first).toMatch(/^[0-9a-f]{12}$/)
    expect(api.importText(CHAT, 'renamed.json').ok).toBe(true)
    expect(api.fingerprint()).toBe(first)
    expect(api.importText(CHAT.replace('Hall B', 'Hall C'), 'venue.json').ok).toBe(true)
    expect(api.fingerprint()).not.toBe(first)
  })
})

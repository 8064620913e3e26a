import { describe, expect, it } from 'vitest'
import type { TranscriptInfo } from '../worker/protocol'
import { createStoreEvents } from './events'

describe('store events', () => {
  it('each event reaches its own listeners, in the order they registered', () => {
    const events = createStoreEvents()
    const heard: string[] = []
    events.on('transcriptChanged', ({ reimport }) => heard.push(`first ${reimport}`))
    events.on('loadStarted', ({ fileName }) => heard.push(`load ${fileName}`))
    events.on('transcriptChanged', () => heard.push('second'))
    events.emit('loadStarted', { fileName: 'a.json' })
    events.emit('transcriptChanged', { info: {} as TranscriptInfo, reimport: false })
    expect(heard).toEqual(['load a.json', 'first false', 'second'])
  })

  it('two stores never hear each other', () => {
    const one = createStoreEvents()
    const two = createStoreEvents()
    let heard = 0
    one.on('loadStarted', () => heard++)
    two.emit('loadStarted', { fileName: 'b.json' })
    expect(heard).toBe(0)
  })
})

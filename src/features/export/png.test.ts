import { describe, expect, it } from 'vitest'
import { pngFileName } from './png'

describe('pngFileName', () => {
  it('names the picture after the transcript without its extension', () => {
    expect(pngFileName('session.jsonl', 'timeline')).toBe('session-timeline.png')
    expect(pngFileName('claude-code-session.json', 'heatmap')).toBe('claude-code-session-heatmap.png')
    expect(pngFileName('run 7.yaml', 'totals')).toBe('run 7-totals.png')
  })

  it('drops a compression extension with the one before it, and any folder', () => {
    expect(pngFileName('big.jsonl.gz', 'timeline')).toBe('big-timeline.png')
    expect(pngFileName('C:\\logs\\agent.jsonl', 'totals')).toBe('agent-totals.png')
    expect(pngFileName('logs/agent.jsonl', 'totals')).toBe('agent-totals.png')
  })

  it('replaces characters a file system may refuse, and names an empty name "transcript"', () => {
    expect(pngFileName('a:b*c?.jsonl', 'heatmap')).toBe('a_b_c_-heatmap.png')
    expect(pngFileName('', 'timeline')).toBe('transcript-timeline.png')
    expect(pngFileName('.jsonl', 'timeline')).toBe('transcript-timeline.png')
  })
})

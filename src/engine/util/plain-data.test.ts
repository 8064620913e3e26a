import { describe, expect, it } from 'vitest'
import { samePlainData } from './plain-data'

describe('samePlainData', () => {
  const row = {
    id: 'm3',
    index: 3,
    role: 'tool',
    tokens: 120,
    preview: 'ls -la',
    flags: { injected: true },
    images: 0,
    thinking: 0,
    fate: { kind: 'summarized', stage: 'summarize', pass: 1, summaryId: 's1' },
    counterpartIds: ['s1'],
  }

  it('holds for a row sent anew with the same content', () => {
    expect(samePlainData(row, structuredClone(row))).toBe(true)
  })

  it('fails when any field differs, nested or not, or one side has a field the other lacks', () => {
    expect(samePlainData(row, { ...row, tokens: 121 })).toBe(false)
    expect(samePlainData(row, { ...row, fate: { ...row.fate, pass: 2 } })).toBe(false)
    expect(samePlainData(row, { ...row, counterpartIds: ['s1', 's2'] })).toBe(false)
    expect(samePlainData(row, { ...row, flags: {} })).toBe(false)
    expect(samePlainData(row, { ...row, estimated: true })).toBe(false)
    expect(samePlainData({ ...row, isError: undefined }, { ...row, toolName: undefined })).toBe(false)
    expect(samePlainData(['a'], { 0: 'a' })).toBe(false)
    expect(samePlainData(null, {})).toBe(false)
  })
})

import { afterEach, describe, expect, it, vi } from 'vitest'
import { THEME_STORAGE_KEY, applyThemeChoice, parseThemeChoice, readThemeChoice, saveThemeChoice } from './theme'
import { memoryStorage } from '../../test/memory-storage'

/** The attribute calls of an element, over a Map. */
function fakeRoot() {
  const attrs = new Map<string, string>()
  return {
    attrs,
    setAttribute: (k: string, v: string) => void attrs.set(k, v),
    removeAttribute: (k: string) => void attrs.delete(k),
  }
}

afterEach(() => {
  vi.unstubAllGlobals()
})

describe('theme choice', () => {
  it('reads only light and dark as forced; anything else is system', () => {
    expect(parseThemeChoice('light')).toBe('light')
    expect(parseThemeChoice('dark')).toBe('dark')
    expect(parseThemeChoice('Dark')).toBe('system')
    expect(parseThemeChoice('')).toBe('system')
    expect(parseThemeChoice(null)).toBe('system')
    expect(parseThemeChoice(undefined)).toBe('system')
  })

  it('sets data-theme for light and dark and removes it for system', () => {
    const root = fakeRoot()
    applyThemeChoice('dark', root as unknown as HTMLElement)
    expect(root.attrs.get('data-theme')).toBe('dark')
    applyThemeChoice('light', root as unknown as HTMLElement)
    expect(root.attrs.get('data-theme')).toBe('light')
    applyThemeChoice('system', root as unknown as HTMLElement)
    expect(root.attrs.has('data-theme')).toBe(false)
  })

  it('remembers a forced choice under its key and forgets it for system', () => {
    const store = memoryStorage()
    const root = fakeRoot()
    vi.stubGlobal('localStorage', store)
    vi.stubGlobal('document', { documentElement: root })
    saveThemeChoice('dark')
    expect(store.map.get(THEME_STORAGE_KEY)).toBe('dark')
    expect(root.attrs.get('data-theme')).toBe('dark')
    expect(readThemeChoice()).toBe('dark')
    saveThemeChoice('system')
    expect(store.map.has(THEME_STORAGE_KEY)).toBe(false)
    expect(root.attrs.has('data-theme')).toBe(false)
    expect(readThemeChoice()).toBe('system')
  })

  it('falls back to system when storage throws, and still applies a choice', () => {
    const root = fakeRoot()
    const broken = {
      getItem: () => {
        throw new Error('SecurityError')
      },
      setItem: () => {
        throw new Error('QuotaExceededError')
      },
      removeItem: () => undefined,
    }
    vi.stubGlobal('localStorage', broken)
    vi.stubGlobal('document', { documentElement: root })
    expect(readThemeChoice()).toBe('system')
    saveThemeChoice('light')
    expect(root.attrs.get('data-theme')).toBe('light')
  })
})

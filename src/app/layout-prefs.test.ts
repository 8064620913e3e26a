import { afterEach, describe, expect, it, vi } from 'vitest'
import { SIDEBAR_STORAGE_KEY, readSidebarCollapsed, saveSidebarCollapsed } from './layout-prefs'
import { memoryStorage } from '../../test/memory-storage'

afterEach(() => {
  vi.unstubAllGlobals()
})

describe('sidebar state', () => {
  it('is open when nothing is stored and collapsed only for the stored "1"', () => {
    vi.stubGlobal('localStorage', memoryStorage())
    expect(readSidebarCollapsed()).toBe(false)
    vi.stubGlobal('localStorage', memoryStorage({ [SIDEBAR_STORAGE_KEY]: '1' }))
    expect(readSidebarCollapsed()).toBe(true)
    vi.stubGlobal('localStorage', memoryStorage({ [SIDEBAR_STORAGE_KEY]: 'true' }))
    expect(readSidebarCollapsed()).toBe(false)
  })

  it('stores "1" when collapsed and removes the key when opened again', () => {
    const storage = memoryStorage()
    vi.stubGlobal('localStorage', storage)
    saveSidebarCollapsed(true)
    expect(storage.map.get(SIDEBAR_STORAGE_KEY)).toBe('1')
    expect(readSidebarCollapsed()).toBe(true)
    saveSidebarCollapsed(false)
    expect(storage.map.has(SIDEBAR_STORAGE_KEY)).toBe(false)
  })

  it('reads open and saves nothing when storage throws', () => {
    const throwing = {
      getItem: () => {
        throw new Error('denied')
      },
      setItem: () => {
        throw new Error('quota')
      },
      removeItem: () => undefined,
    }
    vi.stubGlobal('localStorage', throwing)
    expect(readSidebarCollapsed()).toBe(false)
    expect(() => saveSidebarCollapsed(true)).not.toThrow()
  })
})

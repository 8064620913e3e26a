import { describe, expect, it } from 'vitest'
import { isTypingTarget, rovingIndex, shortcutFor, type ShortcutKey, type TargetLike } from './shortcuts'

const key = (k: string, mods: Partial<ShortcutKey> = {}): ShortcutKey => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  defaultPrevented: false,
  ...mods,
})
const element = (tagName: string, extra: Partial<TargetLike> = {}): TargetLike => ({
  tagName,
  isContentEditable: false,
  closest: () => null,
  ...extra,
})

describe('shortcutFor', () => {
  it('maps / to the fact finder and ? to the shortcut list on the page body', () => {
    expect(shortcutFor(key('/'), element('BODY'))).toBe('focus-finder')
    expect(shortcutFor(key('?'), element('BUTTON'))).toBe('show-shortcuts')
    expect(shortcutFor(key('/'), null)).toBe('focus-finder')
  })

  it('maps Shift+P (the key "P") to presentation mode, not a plain p or Ctrl+Shift+P', () => {
    expect(shortcutFor(key('P'), element('BODY'))).toBe('toggle-present')
    expect(shortcutFor(key('p'), element('BODY'))).not.toBe('toggle-present')
    expect(shortcutFor(key('P', { ctrlKey: true }), element('BODY'))).toBeNull()
    expect(shortcutFor(key('P'), element('INPUT'))).toBeNull()
  })

  it('ignores other keys, modifier chords and events a handler already took', () => {
    expect(shortcutFor(key('j'), element('BODY'))).toBeNull()
    expect(shortcutFor(key('/', { ctrlKey: true }), element('BODY'))).toBeNull()
    expect(shortcutFor(key('/', { metaKey: true }), element('BODY'))).toBeNull()
    expect(shortcutFor(key('?', { altKey: true }), element('BODY'))).toBeNull()
    expect(shortcutFor(key('/', { defaultPrevented: true }), element('BODY'))).toBeNull()
  })

  it('ignores keys typed into fields, contenteditable elements and dialogs', () => {
    for (const tag of ['INPUT', 'TEXTAREA', 'SELECT', 'input']) {
      expect(shortcutFor(key('/'), element(tag))).toBeNull()
    }
    expect(shortcutFor(key('?'), element('DIV', { isContentEditable: true }))).toBeNull()
    expect(shortcutFor(key('?'), element('BUTTON', { closest: () => ({}) }))).toBeNull()
  })
})

describe('isTypingTarget', () => {
  it('is false for a button outside any dialog and for no target', () => {
    expect(isTypingTarget(element('BUTTON'))).toBe(false)
    expect(isTypingTarget(null)).toBe(false)
  })
})

describe('rovingIndex', () => {
  it('moves right and left with wrap-around, and Home / End to the ends', () => {
    expect(rovingIndex('ArrowRight', 0, 7)).toBe(1)
    expect(rovingIndex('ArrowRight', 6, 7)).toBe(0)
    expect(rovingIndex('ArrowLeft', 0, 7)).toBe(6)
    expect(rovingIndex('ArrowLeft', 3, 7)).toBe(2)
    expect(rovingIndex('Home', 4, 7)).toBe(0)
    expect(rovingIndex('End', 1, 7)).toBe(6)
  })

  it('is null for other keys and for an empty list', () => {
    expect(rovingIndex('ArrowDown', 0, 7)).toBeNull()
    expect(rovingIndex('ArrowRight', 0, 0)).toBeNull()
  })
})

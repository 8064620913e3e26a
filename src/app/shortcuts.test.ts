import { describe, expect, it } from 'vitest'
import {
  isTypingTarget,
  rovingIndex,
  SHORTCUT_GROUPS,
  SHORTCUT_HELP,
  shortcutFor,
  shortcutGroups,
  type ShortcutKey,
  type TargetLike,
} from './shortcuts'

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
    expect(shortcutFor(key('x'), element('BODY'))).toBeNull()
    expect(shortcutFor(key('J'), element('BODY'))).toBeNull()
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
    expect(shortcutFor(key('/'), element('INPUT', { type: 'text' }))).toBeNull()
    expect(shortcutFor(key('j'), element('INPUT', { type: 'search' }))).toBeNull()
  })

  it('takes letters on checkboxes, radios and sliders (they take no text), outside dialogs', () => {
    for (const type of ['checkbox', 'radio', 'range', 'CHECKBOX']) {
      expect(shortcutFor(key('?'), element('INPUT', { type }))).toBe('show-shortcuts')
      expect(shortcutFor(key('/'), element('INPUT', { type }))).toBe('focus-finder')
    }
    expect(shortcutFor(key('?'), element('INPUT', { type: 'checkbox', closest: () => ({}) }))).toBeNull()
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

describe('the Before | After keys', () => {
  it('maps j / k, Enter / Space and [ / ] on the page body', () => {
    expect(shortcutFor(key('j'), element('BODY'))).toBe('next-message')
    expect(shortcutFor(key('k'), element('BODY'))).toBe('previous-message')
    expect(shortcutFor(key('Enter'), element('BODY'))).toBe('toggle-expand')
    expect(shortcutFor(key(' '), element('DIV'))).toBe('toggle-expand')
    expect(shortcutFor(key('['), element('BODY'))).toBe('previous-pass')
    expect(shortcutFor(key(']'), element('BODY'))).toBe('next-pass')
  })

  it('leaves Enter and Space to the control they activate, and every key to fields and dialogs', () => {
    // A real element's closest() matches the element itself: a button, a tab, a link.
    const control = (tagName: string, matches: string) =>
      element(tagName, { closest: (selector: string) => (selector.split(', ').includes(matches) ? {} : null) })
    expect(shortcutFor(key('Enter'), control('BUTTON', 'button'))).toBeNull()
    expect(shortcutFor(key(' '), control('DIV', '[role="tab"]'))).toBeNull()
    expect(shortcutFor(key('Enter'), control('A', 'a[href]'))).toBeNull()
    // j on a button is still j: only Enter and Space activate controls.
    expect(shortcutFor(key('j'), control('BUTTON', 'button'))).toBe('next-message')
    expect(shortcutFor(key('j'), element('INPUT'))).toBeNull()
    expect(shortcutFor(key(']'), element('BUTTON', { closest: () => ({}) }))).toBeNull()
    expect(shortcutFor(key('k', { ctrlKey: true }), element('BODY'))).toBeNull()
  })
})

describe('the one table', () => {
  it('dispatches every key it lists to that key\'s action, and no action from two entries', () => {
    const seen = new Set<string>()
    for (const entry of SHORTCUT_HELP) {
      for (const [k, action] of Object.entries(entry.actions ?? {})) {
        expect(shortcutFor(key(k), element('BODY'))).toBe(action)
        expect(seen.has(k)).toBe(false)
        seen.add(k)
      }
    }
    for (const k of [' ', '/', '?', 'Enter', '[', ']', 'j', 'k']) expect(seen.has(k)).toBe(true)
  })

  it('groups every entry once, under the headings in their order, leaving out empty ones', () => {
    const groups = shortcutGroups()
    expect(groups.flatMap((g) => g.entries)).toHaveLength(SHORTCUT_HELP.length)
    expect(groups.map((g) => g.group).slice(0, 4)).toEqual(['Anywhere', 'Before | After', 'Tab bar', 'Settings'])
    const order = groups.map((g) => SHORTCUT_GROUPS.indexOf(g.group))
    expect(order).toEqual([...order].sort((a, b) => a - b))
    const before = groups.find((g) => g.group === 'Before | After')
    expect(before?.entries.map((e) => e.keys)).toEqual(['j / k', 'Enter / Space', '[ / ]'])
    expect(shortcutGroups([{ group: 'Playback', keys: 'x', does: 'y' }]).map((g) => g.group)).toEqual(['Playback'])
  })
})

/**
 * What a page-wide shortcut does: focus the fact finder, open the list of shortcuts, or enter or
 * leave presentation mode.
 */
export type ShortcutAction = 'focus-finder' | 'show-shortcuts' | 'toggle-present'

/** One row of the shortcut list: the keys as shown to the reader and what they do. */
export interface ShortcutHelp {
  keys: string
  does: string
}

/** Every keyboard shortcut of the page, in the order the `?` dialog lists them. */
export const SHORTCUT_HELP: readonly ShortcutHelp[] = [
  { keys: '/', does: 'Focus the fact finder (switches to Before | After)' },
  { keys: '?', does: 'Show this list of shortcuts' },
  { keys: 'Esc', does: 'Close this list (or any open dialog)' },
  { keys: '← / →', does: 'In the tab bar: previous / next view' },
  { keys: 'Home / End', does: 'In the tab bar: first / last view' },
  { keys: 'Shift+P', does: 'Presentation mode: Before | After and the savings only, larger text; Esc leaves' },
  { keys: 'Tab (first stop)', does: '“Skip to the conversation”: jump past the header and settings' },
]

/** The part of a keydown event a shortcut reads (a plain object in tests). */
export interface ShortcutKey {
  key: string
  ctrlKey: boolean
  metaKey: boolean
  altKey: boolean
  defaultPrevented: boolean
}

/** The part of an event target that tells whether the reader is typing there. */
export interface TargetLike {
  tagName?: string
  isContentEditable?: boolean
  closest?: (selector: string) => unknown
}

const TYPING_TAGS = new Set(['INPUT', 'TEXTAREA', 'SELECT'])

/**
 * Whether a key pressed on `target` belongs to what the reader is typing or to an open dialog:
 * inputs, textareas, selects, contenteditable elements and anything inside a `<dialog>` or a
 * `role="dialog"` element.
 * Shortcuts are ignored there.
 */
export function isTypingTarget(target: TargetLike | null): boolean {
  if (!target) return false
  if (target.tagName && TYPING_TAGS.has(target.tagName.toUpperCase())) return true
  if (target.isContentEditable) return true
  return Boolean(target.closest?.('dialog, [role="dialog"]'))
}

/**
 * The page-wide shortcut a keydown is, or null: `/` focuses the fact finder, `?` lists the
 * shortcuts, Shift+P (`P`) toggles presentation mode. Null with Ctrl, Meta or Alt held (browser and system shortcuts), for an event a
 * handler already took (`defaultPrevented`), and while typing (see `isTypingTarget`).
 * Shift is allowed: `?` is Shift+/ on most layouts.
 */
export function shortcutFor(event: ShortcutKey, target: TargetLike | null): ShortcutAction | null {
  if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return null
  if (isTypingTarget(target)) return null
  if (event.key === '/') return 'focus-finder'
  if (event.key === '?') return 'show-shortcuts'
  if (event.key === 'P') return 'toggle-present'
  return null
}

/**
 * The index of the tab a key moves to in an ARIA tab list of `count` tabs from tab `index`:
 * ArrowRight / ArrowLeft to the next / previous one (wrapping around), Home / End to the first /
 * last one. Null for any other key or an empty list.
 */
export function rovingIndex(key: string, index: number, count: number): number | null {
  if (count <= 0) return null
  switch (key) {
    case 'ArrowRight':
      return (index + 1) % count
    case 'ArrowLeft':
      return (index - 1 + count) % count
    case 'Home':
      return 0
    case 'End':
      return count - 1
    default:
      return null
  }
}

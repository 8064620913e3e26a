/**
 * A shortcut the page dispatches from a document keydown: focus the fact finder, open the list of
 * shortcuts, or (in Before | After) move the selection, expand the selected row, step passes.
 */
export type ShortcutAction =
  | 'focus-finder'
  | 'show-shortcuts'
  | 'next-message'
  | 'previous-message'
  | 'toggle-expand'
  | 'next-pass'
  | 'previous-pass'
  | 'toggle-present'
  | 'playback-toggle'
  | 'playback-back'
  | 'playback-forward'

/** The headings of the `?` list, in the order it shows them. */
export const SHORTCUT_GROUPS = ['Anywhere', 'Before | After', 'Tab bar', 'Settings', 'Playback'] as const

/** One heading of the `?` list. */
export type ShortcutGroup = (typeof SHORTCUT_GROUPS)[number]

/** One row of the shortcut list: the keys as shown to the reader, what they do, and when they apply. */
export interface ShortcutHelp {
  group: ShortcutGroup
  keys: string
  does: string
  /** When the keys apply, if not whenever focus is outside a field and a dialog. */
  when?: string
  /**
   * The `KeyboardEvent.key` values dispatched from a document keydown, each with its action. Absent
   * for keys a focused control handles itself (the tab bar's arrows, Escape in a dialog).
   */
  actions?: Readonly<Record<string, ShortcutAction>>
}

/** Every keyboard shortcut of the page, in the order the `?` dialog lists them within their group. */
export const SHORTCUT_HELP: readonly ShortcutHelp[] = [
  { group: 'Anywhere', keys: '/', does: 'Focus the fact finder (switches to Before | After)', actions: { '/': 'focus-finder' } },
  { group: 'Anywhere', keys: '?', does: 'Show this list of shortcuts', actions: { '?': 'show-shortcuts' } },
  { group: 'Anywhere', keys: 'Esc', does: 'Close this list (or any open dialog); leave presentation mode' },
  {
    group: 'Anywhere',
    keys: 'Shift+P',
    does: 'Presentation mode: Before | After and the savings only, larger text; Esc leaves',
    actions: { P: 'toggle-present' },
  },
  {
    group: 'Anywhere',
    keys: 'Tab (first stop)',
    does: '“Skip to the conversation”: jump past the header and settings',
  },
  {
    group: 'Before | After',
    keys: 'j / k',
    does: 'Select the next / previous message; its counterpart is revealed in the other column',
    actions: { j: 'next-message', k: 'previous-message' },
  },
  {
    group: 'Before | After',
    keys: 'Enter / Space',
    does: 'Expand or collapse the selected message',
    when: 'a message is selected (or has focus)',
    actions: { Enter: 'toggle-expand', ' ': 'toggle-expand' },
  },
  {
    group: 'Before | After',
    keys: '[ / ]',
    does: 'Go to the previous / next compaction pass: both columns scroll to its boundary',
    when: 'the run has a compaction pass',
    actions: { '[': 'previous-pass', ']': 'next-pass' },
  },
  { group: 'Tab bar', keys: '← / →', does: 'Previous / next view', when: 'a tab has focus' },
  { group: 'Tab bar', keys: 'Home / End', does: 'First / last view', when: 'a tab has focus' },
  {
    group: 'Settings',
    keys: 'Enter / Space',
    does: 'Show or hide a setting’s help; Esc hides it',
    when: 'a setting’s “i” help button has focus',
  },
  { group: 'Settings', keys: 'Ctrl+Z', does: 'Undo the last settings change (⌘Z on a Mac)', when: 'not typing in a text field' },
  {
    group: 'Settings',
    keys: 'Ctrl+Shift+Z / Ctrl+Y',
    does: 'Redo (⌘⇧Z on a Mac)',
    when: 'not typing in a text field',
  },
  {
    group: 'Playback',
    keys: 'p',
    does: 'Play / pause the session turn by turn (starts playback while it is off, also in presentation mode)',
    actions: { p: 'playback-toggle' },
  },
  {
    group: 'Playback',
    keys: ', / .',
    does: 'Step one turn back / forward (pauses)',
    when: 'playback is on',
    actions: { ',': 'playback-back', '.': 'playback-forward' },
  },
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
  /** An `<input>`'s type (`text` when absent, as in the DOM). */
  type?: string
  isContentEditable?: boolean
  closest?: (selector: string) => unknown
}

const TYPING_TAGS = new Set(['INPUT', 'TEXTAREA', 'SELECT'])

/** `<input>` types that take no typed text: a letter pressed there is a shortcut. */
const UNTYPED_INPUTS = new Set(['checkbox', 'radio', 'range', 'button', 'submit', 'reset', 'color', 'file', 'image'])

/**
 * Whether a key pressed on `target` belongs to what the reader is typing or to an open dialog:
 * text inputs (not checkboxes, radios, sliders or buttons), textareas, selects, contenteditable
 * elements and anything inside a `<dialog>` or a `role="dialog"` element.
 * Shortcuts are ignored there.
 */
export function isTypingTarget(target: TargetLike | null): boolean {
  if (!target) return false
  const tag = target.tagName?.toUpperCase()
  if (tag === 'INPUT' && UNTYPED_INPUTS.has((target.type ?? 'text').toLowerCase())) return Boolean(target.closest?.('dialog, [role="dialog"]'))
  if (tag && TYPING_TAGS.has(tag)) return true
  if (target.isContentEditable) return true
  return Boolean(target.closest?.('dialog, [role="dialog"]'))
}

/** Elements that Enter and Space activate themselves: there those keys are not shortcuts. */
const CONTROL_SELECTOR =
  'button, a[href], summary, label, input, [role="button"], [role="tab"], [role="switch"], [role="checkbox"], [role="separator"][tabindex]'

/** The action of each key in the table (`SHORTCUT_HELP`'s `actions`), read once. */
const ACTION_OF: ReadonlyMap<string, ShortcutAction> = new Map(
  SHORTCUT_HELP.flatMap((s) => Object.entries(s.actions ?? {})),
)

/**
 * The shortcut a keydown is, read from the one table (`SHORTCUT_HELP`), or null. Null with Ctrl,
 * Meta or Alt held (browser and system shortcuts), for an event a handler already took
 * (`defaultPrevented`), while typing (see `isTypingTarget`), and for Enter or Space on a control
 * they activate (a button, link, tab, switch, checkbox). Shift is allowed: `?` is Shift+/ and
 * presentation mode is Shift+P (the key `P`) on most layouts. Which component acts on an action is
 * the caller's choice (the Before | After's own only while it is shown).
 */
export function shortcutFor(event: ShortcutKey, target: TargetLike | null): ShortcutAction | null {
  if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return null
  if (isTypingTarget(target)) return null
  const action = ACTION_OF.get(event.key) ?? null
  if (action === 'toggle-expand' && target?.closest?.(CONTROL_SELECTOR)) return null
  return action
}

/** The table's rows under each heading, headings in `SHORTCUT_GROUPS` order, empty ones left out. */
export function shortcutGroups(
  table: readonly ShortcutHelp[] = SHORTCUT_HELP,
): { group: ShortcutGroup; entries: ShortcutHelp[] }[] {
  return SHORTCUT_GROUPS.map((group) => ({ group, entries: table.filter((s) => s.group === group) })).filter(
    (g) => g.entries.length > 0,
  )
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

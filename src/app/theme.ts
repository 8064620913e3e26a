import { localStore } from '../state/local-storage'

/** The localStorage key of the person's theme choice (`ThemeChoice`); absent means 'system'. */
export const THEME_STORAGE_KEY = 'compaction-inspector:theme'

/** The header's theme choice: follow the OS (`prefers-color-scheme`), or force light or dark. */
export type ThemeChoice = 'system' | 'light' | 'dark'

/** The choices in the order the picker lists them, with their labels. */
export const THEME_CHOICES: readonly { value: ThemeChoice; label: string }[] = [
  { value: 'system', label: 'System' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
]

/** A stored value as a choice: anything but 'light' or 'dark' (absent, edited by hand) is 'system'. */
export function parseThemeChoice(value: string | null | undefined): ThemeChoice {
  return value === 'light' || value === 'dark' ? value : 'system'
}

/** The remembered choice, 'system' when none is stored or storage is unavailable. */
export function readThemeChoice(): ThemeChoice {
  try {
    return parseThemeChoice(localStore()?.getItem(THEME_STORAGE_KEY))
  } catch {
    return 'system'
  }
}

/**
 * Shows `choice` on `root` (the <html> element by default): data-theme="light" or "dark", which the
 * stylesheet's `color-scheme` follows; no attribute for 'system', so the OS preference applies.
 */
export function applyThemeChoice(choice: ThemeChoice, root: HTMLElement = document.documentElement): void {
  if (choice === 'system') root.removeAttribute('data-theme')
  else root.setAttribute('data-theme', choice)
}

/** Applies `choice` and remembers it ('system' removes the stored key); storage errors are ignored. */
export function saveThemeChoice(choice: ThemeChoice): void {
  applyThemeChoice(choice)
  try {
    const s = localStore()
    if (choice === 'system') s?.removeItem(THEME_STORAGE_KEY)
    else s?.setItem(THEME_STORAGE_KEY, choice)
  } catch {
    // quota or disabled storage: the choice still holds for this page
  }
}

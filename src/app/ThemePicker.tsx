import { useState } from 'react'
import { THEME_CHOICES, parseThemeChoice, readThemeChoice, saveThemeChoice, type ThemeChoice } from './theme'

/** The header's theme picker: System (the OS preference), Light or Dark, remembered in this browser. */
export function ThemePicker() {
  const [choice, setChoice] = useState<ThemeChoice>(readThemeChoice)
  return (
    <label className="theme-pick" title="Colour theme: System follows your OS setting; remembered in this browser">
      <span className="visually-hidden">Theme</span>
      <select
        aria-label="Theme"
        value={choice}
        onChange={(e) => {
          const next = parseThemeChoice(e.target.value)
          setChoice(next)
          saveThemeChoice(next)
        }}
      >
        {THEME_CHOICES.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
    </label>
  )
}

import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

// The palette's tokens as written in app.css: `--name: light-dark(#light, #dark);` or one `#hex` for both.
const css = readFileSync(new URL('./app.css', import.meta.url), 'utf8')
const root = css.slice(css.indexOf(':root {'), css.indexOf('\n}', css.indexOf(':root {')))

function token(name: string, scheme: 'light' | 'dark'): string {
  const m = new RegExp(`--${name}:\\s*(?:light-dark\\((#[0-9a-f]{6}),\\s*(#[0-9a-f]{6})\\)|(#[0-9a-f]{6}));`).exec(root)
  if (!m) throw new Error(`--${name} is not a hex colour token of the palette`)
  return (m[3] ?? (scheme === 'light' ? m[1] : m[2])) as string
}

const rgb = (hex: string): number[] => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16))

// WCAG 2.x relative luminance and contrast ratio.
function luminance([r, g, b]: number[]): number {
  const lin = (v: number) => {
    const c = v / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }
  return 0.2126 * lin(r as number) + 0.7152 * lin(g as number) + 0.0722 * lin(b as number)
}
function contrast(a: number[], b: number[]): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number]
  return (hi + 0.05) / (lo + 0.05)
}

// Text tokens and the backgrounds they are drawn on (the CSS rules that pair them).
const TEXT_ON: [text: string, background: string][] = [
  ['text', 'bg'],
  ['text', 'surface'],
  ['text', 'surface-2'],
  ['text-2', 'bg'],
  ['text-2', 'surface'],
  ['text-2', 'surface-2'],
  ['accent-text', 'accent'],
  ['good', 'good-soft'],
  ['good', 'accent-soft'],
  ['bad', 'bad-soft'],
  ['warn', 'warn-soft'],
  ...['kept', 'changed', 'backref', 'placeholder', 'summary', 'pinned', 'slimmed', 'instruction', 'dropped'].map(
    (k): [string, string] => [`k-${k}`, `k-${k}-bg`],
  ),
  ['k-kept', 'surface-2'],
  ['k-recorded', 'surface'],
  ['k-recorded', 'surface-2'],
  // Role pills: the surface colour on the role's colour; a tool's name in the role's colour.
  ...['system', 'user', 'assistant', 'tool'].map((r): [string, string] => ['surface', `r-${r}`]),
  ['r-tool', 'surface'],
  ['fact-mark-text', 'fact-mark'],
]

describe.each(['light', 'dark'] as const)('the %s palette', (scheme) => {
  it.each(TEXT_ON)('--%s on --%s reaches 4.5:1', (text, background) => {
    expect(contrast(rgb(token(text, scheme)), rgb(token(background, scheme)))).toBeGreaterThanOrEqual(4.5)
  })

  // SweepView mixes a heat colour into --surface at 8%–60% (color-mix in srgb) under --text.
  it.each(['heat-good', 'heat-bad', 'heat-accent'])('--text reaches 4.5:1 on every mix of --%s', (heat) => {
    const surface = rgb(token('surface', scheme))
    const colour = rgb(token(heat, scheme))
    for (let percent = 8; percent <= 60; percent++) {
      const cell = colour.map((c, i) => Math.round((c * percent + (surface[i] as number) * (100 - percent)) / 100))
      expect(contrast(rgb(token('text', scheme)), cell)).toBeGreaterThanOrEqual(4.5)
    }
  })
})

/** One choice of a `Segmented` control. */
export interface SegmentedOption<T extends string> {
  value: T
  label: string
}

/**
 * A one-of-several switch (`.segmented`, styles/app.css): a radio group of buttons, the chosen one
 * `aria-checked`. `label` names the group for assistive technology.
 */
export function Segmented<T extends string>({ label, options, value, onChange }: {
  label: string
  options: readonly SegmentedOption<T>[]
  value: T
  onChange: (value: T) => void
}) {
  return (
    <div className="segmented" role="radiogroup" aria-label={label}>
      {options.map((o) => (
        <button
          key={o.value}
          type="button"
          role="radio"
          aria-checked={value === o.value}
          className="segmented__item"
          onClick={() => onChange(o.value)}
        >
          {o.label}
        </button>
      ))}
    </div>
  )
}

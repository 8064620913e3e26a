import { useEffect, useRef, type InputHTMLAttributes } from 'react'

/** Props of `SecretInput`: an input's own, without `value`/`defaultValue`/`type`, plus the secret. */
type SecretInputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'defaultValue' | 'type' | 'onChange'> & {
  value: string
  onValue: (value: string) => void
}

/**
 * A password field whose value never appears in the DOM's markup: a controlled React input mirrors
 * its value into the `value` attribute (so it shows in `outerHTML`, DOM snapshots and
 * accessibility dumps); this one sets only the element's `value` property, from `value`, and
 * reports edits through `onValue`.
 */
export function SecretInput({ value, onValue, ...props }: SecretInputProps) {
  const ref = useRef<HTMLInputElement>(null)
  useEffect(() => {
    const el = ref.current
    if (el && el.value !== value) el.value = value
  }, [value])
  return <input {...props} ref={ref} type="password" onChange={(e) => onValue(e.target.value)} />
}

import { useCallback, useId, useState } from 'react'
import './help.css'

/** One piece of help text shown by a button: whether it is open, the text's element id, the actions. */
export interface HelpState {
  open: boolean
  /** The id of the help text's element (the button's `aria-controls`). */
  id: string
  toggle: () => void
  close: () => void
}

/** The state of one help disclosure (closed at first). */
export function useHelp(): HelpState {
  const [open, setOpen] = useState(false)
  const id = useId()
  const toggle = useCallback(() => setOpen((o) => !o), [])
  const close = useCallback(() => setOpen(false), [])
  return { open, id, toggle, close }
}

/**
 * The ⓘ button of a help disclosure: a real button (a Tab stop; Enter and Space toggle it) with
 * `aria-expanded` and `aria-controls` naming the text; Escape closes the open text. `label` names
 * what the help is about ("About keep_last"); `title` keeps the text as a pointer tooltip too.
 */
export function HelpButton({ help, label, title }: { help: HelpState; label: string; title?: string }) {
  return (
    <button
      type="button"
      className="help-button"
      aria-label={label}
      aria-expanded={help.open}
      aria-controls={help.id}
      title={title}
      onClick={help.toggle}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && help.open) {
          e.preventDefault()
          help.close()
        }
      }}
    >
      i
    </button>
  )
}

/** The text of a help disclosure, in the page's flow under its control; hidden while closed. */
export function HelpText({ help, text, testId }: { help: HelpState; text: string; testId?: string }) {
  return (
    <p id={help.id} className="help-text" hidden={!help.open} data-testid={testId}>
      {text}
    </p>
  )
}

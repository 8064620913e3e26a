import { useEffect, useId, useRef, type ReactNode } from 'react'
import { isUserClose, showModalOnce } from './modal'

/** What a `FormDialog` shows and does; the body between the title and the actions is `children`. */
interface FormDialogProps {
  title: string
  className?: string
  /** Called when the user closes it: Escape, Cancel. */
  onClose: () => void
  /** Called on the submit button or Enter in a field; the dialog stays open until `onClose`. */
  onSubmit: () => void
  submitLabel: string
  submitDisabled?: boolean
  /** Shown under the body as an alert, when set. */
  error?: string | null
  errorTestId?: string
  children: ReactNode
}

/**
 * The page's modal form dialog, mounted only while open (see `showModalOnce`): a titled `<dialog>`
 * holding a form, its body, an error line and Cancel / submit actions. Escape and Cancel call
 * `onClose`; submitting never closes it by itself, so a failure can keep what the user typed.
 */
export function FormDialog({
  title,
  className,
  onClose,
  onSubmit,
  submitLabel,
  submitDisabled,
  error,
  errorTestId,
  children,
}: FormDialogProps) {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  useEffect(() => {
    showModalOnce(ref.current)
  }, [])
  return (
    <dialog
      ref={ref}
      className={className ? `dialog ${className}` : 'dialog'}
      aria-labelledby={titleId}
      onClose={() => {
        if (isUserClose(ref.current)) onClose()
      }}
    >
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault()
          onSubmit()
        }}
      >
        <h2 id={titleId}>{title}</h2>
        {children}
        {error && (
          <p className="dialog__error" role="alert" data-testid={errorTestId}>
            {error}
          </p>
        )}
        <div className="dialog__actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button--primary" disabled={submitDisabled}>
            {submitLabel}
          </button>
        </div>
      </form>
    </dialog>
  )
}

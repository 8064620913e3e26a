/** The part of `HTMLDialogElement` the modal lifecycle touches (a fake in tests). */
export interface ModalLike {
  readonly open: boolean
  showModal: () => void
}

/**
 * Effect body of a modal `<dialog>` that is mounted only while it is open: shows it once.
 * It returns no cleanup on purpose: calling `close()` on unmount queues a `close` event, and under
 * React StrictMode (mount → cleanup → mount) that event arrives after the second mount and closes
 * the dialog the user just opened. A removed `<dialog>` leaves the top layer by itself.
 */
export function showModalOnce(dialog: ModalLike | null): void {
  if (dialog && !dialog.open) dialog.showModal()
}

/**
 * Whether a `close` event means the user closed the dialog (Escape, a form `method="dialog"`):
 * false when the dialog is open again by the time the event is handled (a stale event).
 */
export function isUserClose(dialog: ModalLike | null): boolean {
  return !dialog?.open
}

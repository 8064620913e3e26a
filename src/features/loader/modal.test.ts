import { describe, expect, it } from 'vitest'
import { isUserClose, showModalOnce, type ModalLike } from './modal'

/** A dialog whose `close()` queues its `close` event like the browser does (a task later). */
class FakeDialog implements ModalLike {
  open = false
  showCalls = 0
  private queued: (() => void)[] = []
  constructor(private readonly onCloseEvent: () => void) {}
  showModal() {
    this.showCalls++
    this.open = true
  }
  close() {
    if (!this.open) return
    this.open = false
    this.queued.push(this.onCloseEvent)
  }
  flush() {
    const q = this.queued
    this.queued = []
    for (const f of q) f()
  }
}

describe('modal dialog lifecycle under StrictMode (mount → cleanup → mount)', () => {
  it('stays open and never reports a close', () => {
    let closes = 0
    const dialog: FakeDialog = new FakeDialog(() => {
      if (isUserClose(dialog)) closes++
    })
    // StrictMode runs the effect, its cleanup (none), and the effect again.
    showModalOnce(dialog)
    showModalOnce(dialog)
    dialog.flush()
    expect(dialog.open).toBe(true)
    expect(dialog.showCalls).toBe(1)
    expect(closes).toBe(0)
  })

  it('ignores a stale close event when the dialog was shown again before it arrived', () => {
    let closes = 0
    const dialog: FakeDialog = new FakeDialog(() => {
      if (isUserClose(dialog)) closes++
    })
    // What the old cleanup `() => dialog.close()` did: close between the two mounts.
    showModalOnce(dialog)
    dialog.close()
    showModalOnce(dialog)
    dialog.flush()
    expect(dialog.open).toBe(true)
    expect(closes).toBe(0)
  })

  it('reports a close the user made (Escape) once the dialog is shut', () => {
    let closes = 0
    const dialog: FakeDialog = new FakeDialog(() => {
      if (isUserClose(dialog)) closes++
    })
    showModalOnce(dialog)
    dialog.close()
    dialog.flush()
    expect(closes).toBe(1)
  })

  it('does nothing without an element', () => {
    expect(() => showModalOnce(null)).not.toThrow()
    expect(isUserClose(null)).toBe(true)
  })
})

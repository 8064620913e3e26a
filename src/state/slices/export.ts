import { getEngine } from '../../app/engine-client'
import { downloadBlob } from '../../app/download'
import type { RedactOptions } from '../../report/redact'
import type { ExportTarget, ReportOutcome } from '../../worker/protocol'
import type { SliceCreator, StoreState } from './types'

/** The last export: what was downloaded and what the target could not carry, or why it failed. */
interface ExportNotice {
  ok: boolean
  text: string
  warnings: string[]
}

/** Downloading the After transcript. The Before is never modified. */
export interface ExportSlice {
  exporting: boolean
  exportNotice: ExportNotice | null
  /**
   * Exports the After shown (the recorded one in Recorded mode, else the simulated one) in
   * `target`'s shape; the worker builds the file, the page only downloads it.
   */
  exportAfter: (target: ExportTarget) => Promise<void>
  dismissExportNotice: () => void
  /**
   * The HTML report of the last run (report/build.ts) under the config shown, with `redact`: what
   * redaction would replace (`save: false`), or that and the file downloaded (`save: true`).
   * Built in the worker; answers the outcome for the report dialog.
   */
  report: (redact: RedactOptions, save: boolean) => Promise<ReportOutcome>
}

/**
 * Whether the After an export was made from is no longer the one shown: another transcript or
 * conversation was opened (a new `info`), or the After column switched mode or recorded compaction.
 * A notice about the old one ("Downloaded x.json") would then describe something not on screen.
 */
function afterChanged(state: StoreState, prev: StoreState): boolean {
  return (
    state.info !== prev.info ||
    state.afterMode !== prev.afterMode ||
    state.recordedCompaction !== prev.recordedCompaction
  )
}

export const createExportSlice: SliceCreator<ExportSlice> = (set, get, api, events) => {
  // Bumped whenever the After shown changes: an export that finishes later gives no notice.
  let epoch = 0
  api.subscribe((state, prev) => {
    if (!afterChanged(state, prev)) return
    epoch++
    if (state.exportNotice) set({ exportNotice: null })
  })
  // Any new load (even one that fails) makes a "Downloaded …" notice old news.
  events.on('loadStarted', () => {
    if (get().exportNotice) set({ exportNotice: null })
  })

  return {
    exporting: false,
    exportNotice: null,
    exportAfter: async (target) => {
      const which = get().afterMode === 'recorded' ? 'recorded' : 'after'
      const at = epoch
      set({ exporting: true, exportNotice: null })
      const finish = (exportNotice: ExportNotice) =>
        set(at === epoch ? { exporting: false, exportNotice } : { exporting: false })
      try {
        const outcome = await getEngine().exportAfter(which, target)
        if (!outcome.ok) {
          finish({ ok: false, text: `Export failed: ${outcome.error}`, warnings: [] })
          return
        }
        downloadBlob(outcome.blob, outcome.fileName)
        finish({ ok: true, text: `Downloaded ${outcome.fileName}`, warnings: outcome.warnings })
      } catch (e) {
        finish({ ok: false, text: `Export failed: ${e instanceof Error ? e.message : String(e)}`, warnings: [] })
      }
    },
    dismissExportNotice: () => set({ exportNotice: null }),
    report: async (redact, save) => {
      const config = get().config
      if (!config || !get().run) return { ok: false, error: 'Nothing has run yet.' }
      try {
        const outcome = await getEngine().report(config, redact, save)
        if (outcome.ok && outcome.file) downloadBlob(outcome.file.blob, outcome.file.fileName)
        return outcome
      } catch (e) {
        return { ok: false, error: e instanceof Error ? e.message : String(e) }
      }
    },
  }
}

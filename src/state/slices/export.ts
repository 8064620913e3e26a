import { getEngine } from '../../app/engine-client'
import { downloadBlob } from '../../app/download'
import type { ExportTarget } from '../../worker/protocol'
import type { SliceCreator } from './types'

/** The last export: what was downloaded and what the target could not carry, or why it failed. */
export interface ExportNotice {
  ok: boolean
  text: string
  warnings: string[]
}

/** Downloading the After transcript (issue 3 item 5). The Before is never modified. */
export interface ExportSlice {
  exporting: boolean
  exportNotice: ExportNotice | null
  /**
   * Exports the After shown (the recorded one in Recorded mode, else the simulated one) in
   * `target`'s shape; the worker builds the file, the page only downloads it.
   */
  exportAfter: (target: ExportTarget) => Promise<void>
  dismissExportNotice: () => void
}

export const createExportSlice: SliceCreator<ExportSlice> = (set, get) => ({
  exporting: false,
  exportNotice: null,
  exportAfter: async (target) => {
    const which = get().afterMode === 'recorded' ? 'recorded' : 'after'
    set({ exporting: true, exportNotice: null })
    try {
      const outcome = await getEngine().exportAfter(which, target)
      if (!outcome.ok) {
        set({ exporting: false, exportNotice: { ok: false, text: `Export failed: ${outcome.error}`, warnings: [] } })
        return
      }
      downloadBlob(outcome.blob, outcome.fileName)
      set({
        exporting: false,
        exportNotice: { ok: true, text: `Downloaded ${outcome.fileName}`, warnings: outcome.warnings },
      })
    } catch (e) {
      const text = `Export failed: ${e instanceof Error ? e.message : String(e)}`
      set({ exporting: false, exportNotice: { ok: false, text, warnings: [] } })
    }
  },
  dismissExportNotice: () => set({ exportNotice: null }),
})

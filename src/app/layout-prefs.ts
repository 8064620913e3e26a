import { localStore } from '../state/local-storage'

/** The localStorage key of the sidebar's state: '1' while the pipeline sidebar is collapsed. */
export const SIDEBAR_STORAGE_KEY = 'compaction-inspector:sidebar-collapsed'

/** The id of the pipeline sidebar, which the header's toggle controls (`aria-controls`). */
export const SIDEBAR_ID = 'pipeline-panel'

/** Whether the sidebar was left collapsed; false when nothing is stored or storage is unavailable. */
export function readSidebarCollapsed(): boolean {
  try {
    return localStore()?.getItem(SIDEBAR_STORAGE_KEY) === '1'
  } catch {
    return false
  }
}

/** Remembers the sidebar's state (open removes the key); storage errors are ignored. */
export function saveSidebarCollapsed(collapsed: boolean): void {
  try {
    const s = localStore()
    if (collapsed) s?.setItem(SIDEBAR_STORAGE_KEY, '1')
    else s?.removeItem(SIDEBAR_STORAGE_KEY)
  } catch {
    // quota or disabled storage: the state still holds for this page
  }
}

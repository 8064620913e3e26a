import { useDeferredValue, useEffect, useRef, useState } from 'react'
import { AfterModeControl } from '../features/compare/AfterModeControl'
import { ImportHeadView } from '../features/compare/ImportHeadView'
import { CostView } from '../features/costs/CostView'
import { ExportButtons } from '../features/export/ExportButtons'
import { PrintHeading } from '../features/export/PrintHeading'
import { DropOverlay } from '../features/loader/DropOverlay'
import { ImportErrorBanner } from '../features/loader/ImportErrorBanner'
import { CheckWarnings } from '../features/facts/CheckWarnings'
import { PipelinePanel } from '../features/pipeline/PipelinePanel'
import { Playback } from '../features/playback/PlaybackBar'
import { ShareNotice } from '../features/pipeline/ShareNotice'
import { startUrlSync } from '../features/pipeline/url-sync'
import { SendDialog } from '../features/summarizer/SendDialog'
import { SummarizerStatus } from '../features/summarizer/SummarizerStatus'
import { TotalsBar } from '../features/totals/TotalsBar'
import { useStore } from '../state/store'
import { useInfo, useLoadActions, useTab } from '../state/hooks'
import { selectLoading, selectRun } from '../state/selectors'
import { Header } from './Header'
import { MAIN_ID, Shortcuts, SkipLink, VIEW_PANEL_ID } from './ShortcutsDialog'
import { TAB_VIEWS, TabBar, tabId } from './tabs'
import { readSidebarCollapsed, saveSidebarCollapsed, SIDEBAR_ID } from './layout-prefs'
import { shortcutFor } from './shortcuts'
import { EmptyState, LoadingBar, NothingFired, RunErrorBanner } from './StatusViews'

/**
 * The Export menu of the header: a disclosure holding every download of the After
 * (`ExportButtons`), so the buttons do not take a row above every view. A press outside it or
 * Escape closes it.
 */
function ExportMenu() {
  const ref = useRef<HTMLDetailsElement>(null)
  // Like a menu: a press outside it or Escape closes it.
  useEffect(() => {
    const close = (e: Event) => {
      const menu = ref.current
      if (!menu?.open) return
      if (e instanceof KeyboardEvent ? e.key === 'Escape' : !menu.contains(e.target as Node)) menu.open = false
    }
    document.addEventListener('pointerdown', close)
    document.addEventListener('keydown', close)
    return () => {
      document.removeEventListener('pointerdown', close)
      document.removeEventListener('keydown', close)
    }
  }, [])
  return (
    <details ref={ref} className="export-menu" data-testid="export-menu">
      <summary className="button">Export ▾</summary>
      <div className="export-menu__body">
        <ExportButtons />
      </div>
    </details>
  )
}

/**
 * Presentation mode's keys: Shift+P toggles it (shortcuts.ts), Escape leaves it. Escape goes to an
 * open dialog first (the shortcut list closes itself), so it is ignored inside one.
 */
function usePresentKeys(present: boolean, setPresent: (next: (p: boolean) => boolean) => void) {
  useEffect(() => {
    const onKeyDown = (e: KeyboardEvent) => {
      const target = e.target instanceof Element ? (e.target as HTMLElement) : null
      if (shortcutFor(e, target) === 'toggle-present') {
        e.preventDefault()
        setPresent((p) => !p)
      } else if (present && e.key === 'Escape' && !e.defaultPrevented && !target?.closest('dialog, [role="dialog"]')) {
        setPresent(() => false)
      }
    }
    // Capture: the page-wide dispatcher (ShortcutsDialog) sees the key as taken (`defaultPrevented`).
    document.addEventListener('keydown', onKeyDown, true)
    return () => document.removeEventListener('keydown', onKeyDown, true)
  }, [present, setPresent])
}

/**
 * The app shell: header (with Export and Present), the collapsible pipeline sidebar, a one-row totals bar, the tabs row
 * (views, After mode) and the selected view, which takes the rest of the height. While a large file's
 * streamed head is shown, it takes the place of the totals, tabs and view, under the loading status;
 * while a chosen file loads, the run of the transcript before it is not shown.
 * Presentation mode hides every control: Before | After and the savings badge only.
 */
export function App() {
  const { start } = useLoadActions()
  const info = useInfo()
  // The shell re-renders the whole page: it reads only the two fields it shows, not their slices.
  const run = useStore(selectRun)
  const loading = useStore(selectLoading)
  // The streamed head of a file being loaded: shown instead of the run before it (whose totals and
  // tabs belong to another transcript) until the new file's first run replaces it.
  const head = useStore((s) => s.importHead)
  // A file chosen to replace the open one: the run before it (another file's totals and rows) is
  // not shown meanwhile; a failed load brings it back, a new file's first run replaces it.
  const replacing = useStore((s) => s.loadingFile !== null)
  // The head and the run's view appear one deferred render later: React renders their trees as a
  // transition (in slices, yielding to the page) and the commit only inserts them, so mounting a
  // 50 MB session's head or its full view never holds the main thread in one long task (BENCH
  // B5). Until then the screen before stays: nothing over the loading status, or the head until
  // the full view replaces it (never a blank frame between them). What goes, goes at once.
  const runWanted = !head && !replacing && run !== null
  const runLater = useDeferredValue(runWanted)
  const headLater = useDeferredValue(head)
  const showRun = runWanted && runLater
  const shownHead = headLater && (headLater === head || (!head && runWanted && !runLater)) ? headLater : null
  const { tab, setTab } = useTab()
  const view = TAB_VIEWS.find((t) => t.id === tab) ?? TAB_VIEWS[0]
  const [collapsed, setCollapsed] = useState(readSidebarCollapsed)
  const [present, setPresent] = useState(false)
  usePresentKeys(present, setPresent)

  // Before start: the first config (the worker's defaults) is read over the link's settings.
  useEffect(() => startUrlSync(), [])
  useEffect(() => {
    void start()
  }, [start])
  // Presentation shows Before | After: entering it from another view switches there.
  useEffect(() => {
    if (present && tab !== 'compare') setTab('compare')
  }, [present, tab, setTab])

  const toggleSidebar = () => {
    saveSidebarCollapsed(!collapsed)
    setCollapsed(!collapsed)
  }
  const classes = ['app', present ? 'app--present' : '', collapsed ? 'app--sidebar-collapsed' : ''].filter(Boolean)

  return (
    <div className={classes.join(' ')} data-testid="app">
      <SkipLink />
      <Header
        sidebar={{ collapsed, controls: SIDEBAR_ID, onToggle: toggleSidebar }}
        actions={
          showRun && (
            <span className="header-actions">
              <ExportMenu />
              <button
                type="button"
                className="button"
                aria-pressed={present}
                title="Presentation mode: Before | After and the savings only, larger text (Shift+P; Esc leaves)"
                onClick={() => setPresent(true)}
              >
                Present
              </button>
            </span>
          )
        }
      />
      <ImportErrorBanner />
      <ShareNotice />
      <div className="layout">
        <PipelinePanel id={SIDEBAR_ID} hidden={collapsed} />
        {/* With a head shown, the loading status is its first line rather than floating over it. */}
        <main className={shownHead ? 'content content--head' : 'content'} id={MAIN_ID} tabIndex={-1}>
          <LoadingBar />
          <RunErrorBanner />
          <SummarizerStatus />
          {!info && !loading && <EmptyState />}
          {shownHead && <ImportHeadView head={shownHead} />}
          {showRun && (
            <>
              <PrintHeading />
              <TotalsBar>
                <CheckWarnings />
                <CostView />
              </TotalsBar>
              <NothingFired />
              <div className="tabs-row">
                <TabBar tab={tab} onSelect={setTab} panelId={VIEW_PANEL_ID} />
                <AfterModeControl />
                <Playback />
              </div>
              <div
                className="view"
                role="tabpanel"
                id={VIEW_PANEL_ID}
                aria-labelledby={view && tabId(view.id)}
                tabIndex={-1}
              >
                {view?.render()}
              </div>
            </>
          )}
        </main>
      </div>
      {present && (
        <button type="button" className="button button--small present-exit" onClick={() => setPresent(false)}>
          Leave presentation (Esc)
        </button>
      )}
      <DropOverlay />
      <SendDialog />
      <Shortcuts />
    </div>
  )
}

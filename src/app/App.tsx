import { useEffect } from 'react'
import { AfterModeControl } from '../features/compare/AfterModeControl'
import { CostView } from '../features/costs/CostView'
import { Legend } from '../features/compare/Legend'
import { ExportButtons } from '../features/export/ExportButtons'
import { DropOverlay } from '../features/loader/DropOverlay'
import { ImportErrorBanner } from '../features/loader/ImportErrorBanner'
import { CheckWarnings } from '../features/facts/CheckWarnings'
import { PipelinePanel } from '../features/pipeline/PipelinePanel'
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
import { EmptyState, LoadingBar, NothingFired, RunErrorBanner } from './StatusViews'

/** The app shell: header, pipeline panel, totals, Before | After or the table. */
export function App() {
  const { start } = useLoadActions()
  const info = useInfo()
  // The shell re-renders the whole page: it reads only the two fields it shows, not their slices.
  const run = useStore(selectRun)
  const loading = useStore(selectLoading)
  const { tab, setTab } = useTab()
  const view = TAB_VIEWS.find((t) => t.id === tab) ?? TAB_VIEWS[0]

  // Before start: the first config (the worker's defaults) is read over the link's settings.
  useEffect(() => startUrlSync(), [])
  useEffect(() => {
    void start()
  }, [start])

  return (
    <div className="app">
      <SkipLink />
      <Header />
      <ImportErrorBanner />
      <div className="layout">
        <PipelinePanel />
        <main className="content" id={MAIN_ID} tabIndex={-1}>
          <LoadingBar />
          <RunErrorBanner />
          <SummarizerStatus />
          {!info && !loading && <EmptyState />}
          {run && (
            <>
              <TotalsBar />
              <CheckWarnings />
              <NothingFired />
              <div className="tabs-row">
                <TabBar tab={tab} onSelect={setTab} panelId={VIEW_PANEL_ID} />
                <AfterModeControl />
                <Legend />
              </div>
              <ExportButtons />
              <CostView />
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
      <DropOverlay />
      <SendDialog />
      <Shortcuts />
    </div>
  )
}

import type { KeyboardEvent, ReactNode } from 'react'
import { CompareView } from '../features/compare/CompareView'
import { FactsTable } from '../features/facts/FactsTable'
import { StagesView } from '../features/stages/StagesView'
import { SweepView } from '../features/sweep/SweepView'
import { MessageTableView } from '../features/table/MessageTableView'
import { TimelineView } from '../features/timeline/TimelineView'
import { TurnContextView } from '../features/turn/TurnContextView'
import type { MainTab } from '../state/slices/view'
import { rovingIndex } from './shortcuts'

/** One main view: its tab label and what the tab panel renders. */
export interface TabView {
  id: MainTab
  label: string
  /** Tooltip of the tab button. */
  title?: string
  render: () => ReactNode
}

/**
 * The main views, in tab order. A feature adds its view here (and its id to `MainTab`); the App
 * renders the tab list and the selected panel from this list alone.
 */
export const TAB_VIEWS: readonly TabView[] = [
  { id: 'compare', label: 'Before | After', render: () => <CompareView /> },
  { id: 'table', label: 'Table', render: () => <MessageTableView /> },
  {
    id: 'facts',
    label: 'Facts',
    title: 'The at-risk facts of the Before and what each pass did to them',
    render: () => <FactsTable />,
  },
  {
    id: 'stages',
    label: 'Stage by stage',
    title: 'The After as it stands after each stage of the pipeline, with what each stage saved',
    render: () => <StagesView />,
  },
  {
    id: 'timeline',
    label: 'Timeline',
    title: 'Context tokens per turn, before and after compaction',
    render: () => <TimelineView />,
  },
  { id: 'turn', label: 'Turn N', title: 'What the model had in context at one turn', render: () => <TurnContextView /> },
  {
    id: 'sweep',
    label: 'Sweep',
    title: 'A heat map of two settings: tokens saved, facts lost and passes per pair of values',
    render: () => <SweepView />,
  },
]

/** The id of a main view's tab button (its panel's `aria-labelledby`). */
export const tabId = (id: MainTab): string => `tab-${id}`

/**
 * The tab bar of the main views, in the ARIA tabs pattern: only the selected tab is in the Tab
 * order (roving tabindex); ArrowLeft / ArrowRight (wrapping) and Home / End move to another tab,
 * select it and focus it. `panelId` is the id of the one tab panel the tabs control.
 */
export function TabBar({ tab, onSelect, panelId }: { tab: MainTab; onSelect: (id: MainTab) => void; panelId: string }) {
  const selected = Math.max(
    0,
    TAB_VIEWS.findIndex((t) => t.id === tab),
  )
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const next = rovingIndex(e.key, selected, TAB_VIEWS.length)
    const view = next === null ? undefined : TAB_VIEWS[next]
    if (!view) return
    e.preventDefault()
    onSelect(view.id)
    document.getElementById(tabId(view.id))?.focus()
  }
  return (
    <div className="tabs" role="tablist" aria-label="View" onKeyDown={onKeyDown}>
      {TAB_VIEWS.map((t, i) => (
        <button
          key={t.id}
          id={tabId(t.id)}
          type="button"
          role="tab"
          aria-selected={i === selected}
          aria-controls={panelId}
          tabIndex={i === selected ? 0 : -1}
          className="tab"
          title={t.title}
          onClick={() => onSelect(t.id)}
        >
          {t.label}
        </button>
      ))}
    </div>
  )
}

import type { ReactNode } from 'react'
import { CompareView } from '../features/compare/CompareView'
import { FactsTable } from '../features/facts/FactsTable'
import { StagesView } from '../features/stages/StagesView'
import { SweepView } from '../features/sweep/SweepView'
import { MessageTableView } from '../features/table/MessageTableView'
import { TimelineView } from '../features/timeline/TimelineView'
import { TurnContextView } from '../features/turn/TurnContextView'
import type { MainTab } from '../state/slices/view'

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

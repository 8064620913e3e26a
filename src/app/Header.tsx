import type { ReactNode } from 'react'
import { formatCount, formatCountOf } from '../components/format'
import { LazyDetails } from '../components/LazyDetails'
import { LoadControls } from '../features/loader/LoadControls'
import { useInfo, useLoadActions } from '../state/hooks'
import { useStore } from '../state/store'
import type { TranscriptInfo } from '../worker/protocol'
import { ThemePicker } from './ThemePicker'

/**
 * The file's main conversation or one of its others (Claude Code sub-agents, the further samples,
 * instances, sessions or conversations of one file), opened as its own transcript.
 */
const clip = (title: string) => (title.length > 80 ? `${title.slice(0, 79)}…` : title)

function ConversationPicker() {
  const info = useInfo()
  const { openConversation } = useLoadActions()
  if (!info) return null
  return (
    <label className="conversation-pick">
      <span className="visually-hidden">Conversation</span>
      <select
        aria-label="Conversation"
        value={info.open === 'main' ? 'main' : String(info.open)}
        onChange={(e) => void openConversation(e.target.value === 'main' ? 'main' : Number(e.target.value))}
      >
        <option value="main">{info.mainTitle ? clip(info.mainTitle) : 'Main conversation'}</option>
        {info.sidechains.map((c) => (
          <option key={c.index} value={c.index}>
            {clip(c.title)} ({formatCountOf(c.messageCount, 'message')})
          </option>
        ))}
      </select>
    </label>
  )
}

/** A collapsed pill listing the import's notes or warnings, one sentence each; nothing when empty. */
function ImportList(props: {
  items: string[]
  label: (count: number) => string
  pillClass?: string
  testId?: string
}) {
  const { items, label, pillClass, testId } = props
  if (items.length === 0) return null
  // The list is rendered only while open: an import can say thousands of things.
  return (
    <LazyDetails className="warnings" testId={testId} summary={label(items.length)} summaryClassName={pillClass ? `pill ${pillClass}` : 'pill'}>
      {() => (
        <ul>
          {items.map((text, i) => (
            <li key={i}>{text}</li>
          ))}
        </ul>
      )}
    </LazyDetails>
  )
}

/**
 * The forks off the main line, as a pill that opens their list. The list is rendered only while
 * open, and holds the first `BRANCHES_LISTED` (the worker sends no more): a file can hold tens of
 * thousands.
 */
function BranchList({ info }: { info: TranscriptInfo }) {
  const count = info.branchCount
  return (
    <LazyDetails
      className="branches"
      testId="branches"
      summary={`${formatCount(count)} other branch${count > 1 ? 'es' : ''}`}
      summaryClassName="pill"
    >
      {() => (
        <div className="branches__list">
          <p className="muted">
            Forks off the main line (edits or retries). The main line is the one that reaches the last message.
            {count > info.branches.length && ` The first ${formatCount(info.branches.length)} of ${formatCount(count)} are listed.`}
          </p>
          <ul>
            {info.branches.map((b) => (
              <li key={b.id}>
                <span className="muted">
                  {b.fromMessageId ? `from ${b.fromMessageId}` : 'from the start'} · {formatCount(b.messageCount)}{' '}
                  message{b.messageCount === 1 ? '' : 's'}
                </span>{' '}
                {b.firstText}
              </li>
            ))}
          </ul>
        </div>
      )}
    </LazyDetails>
  )
}

/** The pipeline sidebar's toggle: whether it is collapsed, the id it controls, and the action. */
export interface SidebarToggle {
  collapsed: boolean
  /** The sidebar element's id (`aria-controls`). */
  controls: string
  onToggle: () => void
}

/**
 * The sidebar toggle, product name, the loaded transcript (or the name of a file being loaded to
 * replace it; otherwise file, format, messages, recorded
 * compactions; cut to the room left, never pushing the buttons off), `actions` (the shell's Export
 * and Present), load controls and the theme picker.
 */
export function Header({ sidebar, actions }: { sidebar: SidebarToggle; actions?: ReactNode }) {
  const info = useInfo()
  const loadingFile = useStore((s) => s.loadingFile)
  const recorded = info?.recordedCompactions.length ?? 0
  return (
    <header className="app-header">
      <button
        type="button"
        className="icon-button sidebar-toggle"
        aria-expanded={!sidebar.collapsed}
        aria-controls={sidebar.controls}
        aria-label={sidebar.collapsed ? 'Show the pipeline' : 'Hide the pipeline'}
        title={sidebar.collapsed ? 'Show the pipeline' : 'Hide the pipeline'}
        data-testid="sidebar-toggle"
        onClick={sidebar.onToggle}
      >
        <span aria-hidden="true">☰</span>
      </button>
      {/* The page's one h1; its name stays when a narrow header hides the words. */}
      <h1 className="brand" aria-label="Compaction Inspector">
        <img src={`${import.meta.env.BASE_URL}favicon.svg`} alt="" width={22} height={22} />
        <span className="brand__name">Compaction Inspector</span>
      </h1>
      <div className="file-info" data-testid="file-info">
        {loadingFile !== null ? (
          // A file chosen to replace the open one: the header names it, not the transcript before.
          <>
            <span className="file-info__name" data-testid="loading-file-name">
              {loadingFile}
            </span>
            <span className="muted">loading…</span>
          </>
        ) : info ? (
          <>
            <span className="file-info__name" title={info.title ?? info.fileName}>
              {info.fileName}
            </span>
            <span className="pill" data-testid="file-format" title={`Format: ${info.format}`}>
              {info.format}
            </span>
            <span className="muted" data-testid="message-count">
              {formatCountOf(info.messageCount, 'message')}
            </span>
            {info.sidechains.length > 0 && <ConversationPicker />}
            {info.branchCount > 0 && <BranchList info={info} />}
            {recorded > 0 && (
              <span
                className="pill pill--recorded"
                data-testid="recorded-compactions"
                title={`${recorded} recorded compaction${recorded > 1 ? 's' : ''} in source: compactions the agent itself made in this file`}
              >
                ⎇ {recorded} recorded compaction{recorded > 1 ? 's' : ''} in source
              </span>
            )}
            <ImportList
              items={info.notes}
              label={(n) => `${n} note${n > 1 ? 's' : ''} on this file`}
              testId="import-notes"
            />
            <ImportList
              items={info.warnings}
              label={(n) => `${n} import warning${n > 1 ? 's' : ''}`}
              pillClass="pill--warn"
            />
          </>
        ) : (
          <span className="muted">No transcript loaded</span>
        )}
      </div>
      {actions}
      <LoadControls />
      <ThemePicker />
    </header>
  )
}

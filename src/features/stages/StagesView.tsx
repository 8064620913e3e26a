import './stages.css'
import { useCallback, useEffect, useMemo, useRef } from 'react'
import { formatCount, formatCountOf } from '../../components/format'
import { formatPercentDelta, formatTokenDelta } from '../../engine/delta'
import type { StageId, StageReport } from '../../engine/model'
import { useStore } from '../../state/store'
import { useConfig, useRun, useSelection, useStages } from '../../state/hooks'
import type { RunView, Side } from '../../worker/protocol'
import { buildAfterItems, buildBeforeItems, rowLinks } from '../compare/column-items'
import { MessageColumn, type ColumnHandle } from '../compare/MessageColumn'
import '../compare/compare.css'

/** `−1,234 tokens (−7.0%)` from `before` to `after` (`+…` for a growth); `no change` when equal. */
function savedText(before: number, after: number): string {
  if (before === after) return 'no change'
  return `${formatTokenDelta(before, after)} tokens (${formatPercentDelta(before, after)})`
}

/**
 * Stage by stage: a strip of the enabled stages in run order, each with its
 * tokens before → after and what it saved (the run's stage reports); clicking one shows the After
 * as it stands after that stage (the worker re-runs the prefix), next to the Before with the fates
 * as of that stage. "Final" (or the button in the caption) goes back to the whole pipeline.
 */
export function StagesView() {
  const { run } = useRun()
  const { stageShown, stageView, stageViewError, showStage, syncStageView } = useStages()
  const config = useConfig()

  useEffect(() => {
    syncStageView()
  }, [run, config, stageShown, syncStageView])

  if (!run) return null
  const reports = run.stages
  const shownIndex = stageShown === null ? -1 : reports.findIndex((r) => r.stage === stageShown)
  const shownReport = shownIndex >= 0 ? reports[shownIndex] : undefined
  const before = run.before.totals.tokens

  return (
    <div className="stages-view">
      <ol className="stage-strip" aria-label="Stages in run order">
        {reports.map((report, i) => (
          <StageStep
            key={report.stage}
            report={report}
            position={i}
            active={report.stage === stageShown}
            onShow={showStage}
          />
        ))}
        <li className="stage-strip__item">
          <button
            type="button"
            className="stage-step stage-step--final"
            aria-pressed={stageShown === null}
            data-testid="stage-step-final"
            onClick={() => showStage(null)}
          >
            <span className="stage-step__name">Final After</span>
            <span className="stage-step__tokens">
              {formatCount(before)} → {formatCount(run.after.totals.tokens)}
            </span>
            <span className="stage-step__saved">{savedText(before, run.after.totals.tokens)}</span>
          </button>
        </li>
      </ol>
      <p className="stage-caption" data-testid="stage-caption" aria-live="polite">
        {shownReport ? (
          <>
            Showing the After <strong>after stage {shownIndex + 1} of {reports.length}: {shownReport.stage}</strong>
            {' — '}
            <span data-testid="stage-savings">{savedText(before, shownReport.tokensAfter)}</span> vs Before
            {shownIndex < reports.length - 1 && (
              <span className="muted"> (later stages not applied)</span>
            )}
            <button type="button" className="button button--small stage-caption__back" onClick={() => showStage(null)}>
              Back to the final After
            </button>
          </>
        ) : (
          <>
            Showing the <strong>final After</strong> (all {formatCountOf(reports.length, 'enabled stage')}) —{' '}
            <span data-testid="stage-savings">{savedText(before, run.after.totals.tokens)}</span> vs Before. Click a
            stage to see the After as it stands after it.
          </>
        )}
      </p>
      {stageShown === null ? (
        <StageColumns run={run} afterTitle="After — final" />
      ) : stageViewError ? (
        <div className="banner banner--error" role="alert">
          <span className="banner__text">Could not show the After of {stageShown}: {stageViewError}</span>
        </div>
      ) : stageView ? (
        <StageColumns run={stageView} afterTitle={`After stage ${shownIndex + 1} · ${stageShown}`} />
      ) : (
        <div className="compare compare--waiting" role="status" data-testid="stage-loading">
          Running the pipeline up to {stageShown}…
        </div>
      )}
    </div>
  )
}

interface StageStepProps {
  report: StageReport
  position: number
  active: boolean
  onShow: (stage: StageId) => void
}

function StageStep({ report, position, active, onShow }: StageStepProps) {
  const status = report.error
    ? `error: ${report.error}`
    : report.changed
      ? savedText(report.tokensBefore, report.tokensAfter)
      : 'no change'
  return (
    <li className="stage-strip__item">
      <button
        type="button"
        className={`stage-step${report.changed ? '' : ' stage-step--idle'}${report.error ? ' stage-step--error' : ''}`}
        aria-pressed={active}
        data-testid={`stage-step-${report.stage}`}
        title={report.note}
        onClick={() => onShow(report.stage)}
      >
        <span className="stage-step__name">
          <span className="stage__order">{position + 1}</span>
          {report.stage}
        </span>
        <span className="stage-step__tokens">
          {formatCount(report.tokensBefore)} → {formatCount(report.tokensAfter)}
        </span>
        <span className="stage-step__saved">{status}</span>
      </button>
      <span className="stage-strip__arrow" aria-hidden="true">
        →
      </span>
    </li>
  )
}

/** Before (fates as of the view) | After of the view, linked like Before | After. */
function StageColumns({ run, afterTitle }: { run: RunView; afterTitle: string }) {
  const { selection, selectRow } = useSelection()
  const leftRef = useRef<ColumnHandle>(null)
  const rightRef = useRef<ColumnHandle>(null)
  const beforeItems = useMemo(() => buildBeforeItems(run.before.rows, run.passes, []), [run])
  const afterItems = useMemo(() => buildAfterItems(run.after.rows), [run])
  const beforeLinks = useMemo(() => rowLinks(run.before.rows), [run])
  const afterLinks = useMemo(() => rowLinks(run.after.rows), [run])

  const counterparts = useMemo(() => {
    if (!selection) return []
    return (selection.side === 'before' ? beforeLinks : afterLinks).get(selection.id) ?? []
  }, [selection, beforeLinks, afterLinks])
  const highlightBefore = useMemo(
    () => new Set(selection?.side === 'after' ? counterparts : []),
    [selection, counterparts],
  )
  const highlightAfter = useMemo(
    () => new Set(selection?.side === 'before' ? counterparts : []),
    [selection, counterparts],
  )

  useEffect(() => {
    const first = counterparts[0]
    if (!selection || first === undefined) return
    const other = selection.side === 'before' ? rightRef.current : leftRef.current
    other?.scrollToId(first, 'center')
  }, [selection, counterparts])

  const onSelect = useCallback(
    (side: Side, id: string) => {
      const current = useStore.getState().selection
      selectRow(current?.side === side && current.id === id ? null : { side, id })
    },
    [selectRow],
  )

  const totals = (t: RunView['after']['totals']) =>
    `${formatCountOf(t.messages, 'message')} · ${formatCountOf(t.tokens, 'token')}`
  return (
    <div className="stages-view__columns">
      <MessageColumn
        side="before"
        title="Before"
        subtitle={totals(run.before.totals)}
        items={beforeItems}
        selectedId={selection?.side === 'before' ? selection.id : null}
        highlighted={highlightBefore}
        onSelect={onSelect}
        handleRef={leftRef}
      />
      <MessageColumn
        side="after"
        title={afterTitle}
        subtitle={totals(run.after.totals)}
        items={afterItems}
        selectedId={selection?.side === 'after' ? selection.id : null}
        highlighted={highlightAfter}
        onSelect={onSelect}
        handleRef={rightRef}
      />
    </div>
  )
}

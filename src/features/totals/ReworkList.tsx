import { useEffect } from 'react'
import { formatCount, formatCountOf } from '../../components/format'
import { LazyDetails } from '../../components/LazyDetails'
import { useInfo, useRework, useViewActions } from '../../state/hooks'
import { figuresRunOf, selectFiguresKey, selectShownRun } from '../../state/selectors'
import { useStore } from '../../state/store'
import type { CompactionRework } from '../../worker/protocol'
import './rework.css'

/**
 * Re-work after compaction, after the passes list: for each simulated pass and each recorded
 * compaction with any (in Recorded mode each recorded compaction only: `figuresRunOf`), the
 * engine's sentence and a line per repeated tool call or question asked again, each naming its
 * Before messages (`#N`, a link into Before | After). Asked of the worker once per run; the lines
 * exist only while the list is open.
 */
export function ReworkList() {
  const key = useStore(selectFiguresKey)
  const view = useStore(selectShownRun)
  const recordedView = useStore((s) => figuresRunOf(s)?.recorded !== undefined)
  const info = useInfo()
  const { rework, requestRework } = useRework()
  const recordedCount = info?.recordedCompactions.length ?? 0
  const compactions = (recordedView ? 0 : (view?.passes.length ?? 0)) + recordedCount
  useEffect(() => {
    if (key !== null && compactions > 0) requestRework()
  }, [key, compactions, requestRework])
  if (key === null || compactions === 0) return null
  const current = rework?.key === key ? rework.outcome : null
  const entries = current?.ok ? current.rework.filter((r) => r.calls.length > 0 || r.questions.length > 0) : []
  const calls = entries.reduce((n, r) => n + r.calls.length, 0)
  const questions = entries.reduce((n, r) => n + r.questions.length, 0)
  const tokens = entries.reduce((n, r) => n + r.tokens, 0)
  const summary = !current
    ? 'Re-work after compaction…'
    : !current.ok
      ? `Re-work after compaction: ${current.error}`
      : entries.length === 0
        ? 'Re-work after compaction: none — nothing compacted away was fetched or asked for again'
        : `Re-work after compaction: ${[
            calls > 0 ? formatCountOf(calls, 'repeated tool call') : '',
            questions > 0 ? formatCountOf(questions, 'question asked again', 'questions asked again') : '',
          ]
            .filter(Boolean)
            .join(', ')} — ${formatCountOf(tokens, 'token')}`
  return (
    <LazyDetails className="passes rework" testId="rework-list" summary={<span title={summary}>{summary}</span>}>
      {() =>
        current?.ok && (
          <>
            <ol>
              {entries.map((r) => (
                <ReworkItem key={r.compaction.kind === 'pass' ? `${r.compaction.stage}:${r.compaction.pass}` : `recorded:${r.compaction.compaction}`} rework={r} />
              ))}
            </ol>
            {current.rework.length > entries.length && (
              <p className="muted rework__none">
                {formatCountOf(current.rework.length - entries.length, 'compaction')} with no re-work.
              </p>
            )}
          </>
        )
      }
    </LazyDetails>
  )
}

function ReworkItem({ rework }: { rework: CompactionRework }) {
  return (
    <li data-testid="rework-entry">
      <div className="rework__sentence">{rework.sentence}</div>
      <ul className="rework__lines">
        {rework.calls.map((c) => (
          <li key={c.repeat.callId} data-testid="rework-call">
            <code className="rework__tool">{c.tool}</code> <code className="rework__args">{c.arguments}</code> at{' '}
            <MessageLink id={c.repeat.call.id} index={c.repeat.call.index} /> — made before at{' '}
            <MessageLink id={c.first.call.id} index={c.first.call.index} />, its result{' '}
            {c.first.result && <MessageLink id={c.first.result.id} index={c.first.result.index} />} {c.first.fate}
            <span className="rework__tokens">{formatCount(c.tokens)} tokens</span>
          </li>
        ))}
        {rework.questions.map((q) => (
          <li key={q.repeat.question.id} data-testid="rework-question">
            asked again at <MessageLink id={q.repeat.question.id} index={q.repeat.question.index} />:{' '}
            <q className="rework__question">{q.text}</q> — answered before at{' '}
            <MessageLink id={q.first.answer.id} index={q.first.answer.index} />
            <span className="rework__tokens">{formatCount(q.tokens)} tokens</span>
          </li>
        ))}
      </ul>
    </li>
  )
}

/** `#N`: selects and reveals the Before message. */
function MessageLink({ id, index }: { id: string; index: number }) {
  const { selectRow } = useViewActions()
  return (
    <button type="button" className="link" onClick={() => selectRow({ side: 'before', id, reveal: true })}>
      #{index}
    </button>
  )
}

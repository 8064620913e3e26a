import { useVirtualizer } from '@tanstack/react-virtual'
import { useEffect, useRef, useState } from 'react'
import { Chip } from '../../components/Chip'
import { formatCount, formatCountOf } from '../../components/format'
import { originChip, passName } from '../../components/kinds'
import { RoleBadge } from '../../components/RoleBadge'
import type { RequestShape } from '../../engine/analysis/turns'
import { describeDecision } from '../../engine/stages/triggers'
import { shownResult } from '../../state/selectors'
import { useConfig, useInfo, useRunId, useTurn } from '../../state/hooks'
import type { DecisionLogView, TurnRow } from '../../worker/protocol'
import './turn.css'

const SHAPES: { shape: RequestShape; label: string }[] = [
  { shape: 'openai', label: 'Copy as OpenAI request' },
  { shape: 'anthropic', label: 'Copy as Anthropic request' },
]

/** Summary and pinned blocks get a marked row; placeholders and back-references their chip. */
function rowClass(row: TurnRow): string {
  const kind = row.origin?.kind
  if (kind === 'summary') return 'turn-row turn-row--summary'
  if (kind === 'pinned-facts') return 'turn-row turn-row--pinned'
  return 'turn-row'
}

function Row({ row }: { row: TurnRow }) {
  const chip = row.origin ? originChip(row.origin) : null
  const more = row.textLength - [...row.text].length
  return (
    <div className={rowClass(row)} data-testid="turn-row" data-origin={row.origin?.kind ?? 'original'}>
      <div className="turn-row__head">
        <span className="turn-row__index">{row.index}</span>
        <RoleBadge role={row.role} />
        {row.toolName && <span className="muted">{row.toolName}</span>}
        {chip && chip.kind !== 'kept' && <Chip kind={chip.kind} label={chip.label} />}
        <span className="turn-row__tokens">{formatCountOf(row.tokens, 'token')}</span>
      </div>
      {/* Focusable: a long text scrolls inside its row, and the keyboard must reach it to scroll it. */}
      <div className="turn-row__text" tabIndex={0}>
        {row.text === '' ? <span className="muted">(empty)</span> : row.text}
        {more > 0 && <span className="muted"> … {formatCount(more)} more characters (the copied request has all of them)</span>}
      </div>
    </div>
  )
}

/** The trigger checks of the turn (every stage's), worded by the engine; the ones that compacted stand out. */
function TurnDecisions({ log }: { log: DecisionLogView }) {
  if (log.total === 0) {
    return (
      <p className="turn-decisions muted" data-testid="turn-decisions" data-count={0}>
        No trigger was checked at this turn.
      </p>
    )
  }
  const left = log.total - log.decisions.length
  return (
    <div className="turn-decisions" data-testid="turn-decisions" data-count={log.total}>
      <span className="muted">
        {formatCountOf(log.total, 'trigger check')} at this turn
        {log.fired > 0 ? ` · ${formatCount(log.fired)} compacted` : ''}
        {log.reached > log.fired ? ` · ${formatCount(log.reached - log.fired)} reached but held` : ''}
      </span>
      <ul>
        {log.decisions.map((d, i) => (
          <li key={`${d.stage}:${d.atMessage}:${i}`} data-fired={d.fired ? 'true' : 'false'} data-reached={d.reached ? 'true' : 'false'}>
            <span className="muted">{d.stage}:</span> {describeDecision(d)}
          </li>
        ))}
        {left > 0 && <li className="muted">… {formatCountOf(left, 'more check')} not shown (the ones that compacted or were held come first)</li>}
      </ul>
    </div>
  )
}

/**
 * Context at turn N: a scrubber over the session's turns and exactly the
 * messages the model had in context there under the current pipeline, made in the worker.
 */
export function TurnContextView() {
  const {
    turnView: held,
    turnViewOf: of,
    turnStatus: status,
    turnError: error,
    turn,
    setTurn,
    requestTurn,
    turnRequestText: requestText,
  } = useTurn()
  const info = useInfo()
  const result = shownResult(held, of, status, error, info)
  const view = result.kind === 'result' ? result.value : null
  const config = useConfig()
  const runId = useRunId()
  const [copied, setCopied] = useState<string | null>(null)
  // The slider moves with the pointer; the store follows (the worker drops superseded turns).
  const [draft, setDraft] = useState<number | null>(null)

  useEffect(() => {
    requestTurn()
  }, [config, runId, requestTurn])

  const scroller = useRef<HTMLDivElement>(null)
  const rows = view?.rows ?? []
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 96,
    overscan: 6,
  })

  if (!view) {
    return (
      <div className="turn-view" data-testid="turn-view">
        {result.kind === 'error' ? (
          <p className="banner banner--error" role="alert">
            Could not build the context: {result.error}
          </p>
        ) : (
          <p className="muted">Building the context…</p>
        )}
      </div>
    )
  }

  const shown = draft ?? turn ?? view.turn
  const move = (n: number) => {
    if (!Number.isFinite(n)) return
    const clamped = Math.min(Math.max(1, Math.round(n)), view.turns)
    setDraft(null)
    setCopied(null)
    setTurn(clamped)
  }
  const copy = async (shape: RequestShape, label: string) => {
    setCopied(null)
    const outcome = await requestText(shape)
    if (!outcome.ok) {
      setCopied(`could not copy: ${outcome.error}`)
      return
    }
    try {
      await navigator.clipboard.writeText(outcome.text)
      setCopied(`copied ${label.replace('Copy as ', '')} body`)
    } catch (e) {
      setCopied(`could not copy: ${e instanceof Error ? e.message : String(e)}`)
    }
  }
  const errors = view.stages.filter((s) => s.error !== undefined && s.error !== 'cancelled')
  const saved = view.tokensBefore - view.tokens

  return (
    <div className="turn-view" data-testid="turn-view">
      <div className="turn-view__bar">
        <label className="turn-view__scrub">
          <span>Turn</span>
          <input
            type="range"
            min={1}
            max={view.turns}
            value={shown}
            aria-label="Turn"
            data-testid="turn-slider"
            onChange={(e) => {
              const n = Number(e.target.value)
              setDraft(n)
              setTurn(n)
            }}
            onPointerUp={() => setDraft(null)}
          />
        </label>
        <input
          type="number"
          className="number-input turn-view__number"
          min={1}
          max={view.turns}
          value={shown}
          aria-label="Turn number"
          data-testid="turn-input"
          onChange={(e) => move(Number(e.target.value))}
        />
        <span className="muted">of {formatCount(view.turns)}</span>
        <span className="turn-view__buttons">
          {SHAPES.map(({ shape, label }) => (
            <button key={shape} type="button" className="button button--small" onClick={() => void copy(shape, label)}>
              {label}
            </button>
          ))}
          <span className="turn-view__copied" data-testid="turn-copied" role="status">
            {copied ?? ''}
          </span>
        </span>
      </div>
      <div className="turn-view__facts">
        <span data-testid="turn-tokens" data-tokens={view.tokens}>
          <strong>{formatCountOf(view.tokens, 'token')}</strong> in context at turn {view.turn}
        </span>
        <span className="muted" data-testid="turn-messages" data-count={view.rows.length}>
          {formatCountOf(view.rows.length, 'message')} · the uncompacted prefix (messages 0–{view.endIndex}) is{' '}
          {formatCountOf(view.tokensBefore, 'token')}
          {saved > 0 ? `, ${formatCount(saved)} saved` : ''}
        </span>
        <span data-testid="turn-passes">
          {view.passes.length === 0
            ? 'No pass had fired by this turn'
            : `Passes fired by then: ${view.passes.map((p) => `${passName(p.stage, p.pass)} (messages ${p.from}–${p.upto - 1})`).join(', ')}`}
        </span>
        {result.kind === 'result' && result.updating && <span className="muted">updating…</span>}
      </div>
      <TurnDecisions log={view.decisions} />
      {errors.map((s) => (
        <p key={s.stage} className="turn-view__error">
          {s.stage}: {s.error}
        </p>
      ))}
      <div
        className="turn-view__scroll"
        ref={scroller}
        data-testid="turn-rows"
        role="region"
        aria-label="Messages in context"
        // Focusable so the keyboard scrolls the list (its rows hold no control).
        tabIndex={0}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index]
            if (!row) return null
            return (
              <div
                key={row.id}
                data-index={item.index}
                ref={virtualizer.measureElement}
                style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${item.start}px)` }}
              >
                <Row row={row} />
              </div>
            )
          })}
        </div>
      </div>
    </div>
  )
}

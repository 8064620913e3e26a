import { useRef, type ReactNode } from 'react'
import { stageDefinition } from '../../engine/stages/definitions'
import { formatCount, formatCountOf } from '../../components/format'
import { formatPercentDelta, formatTokenDelta } from '../../engine/delta'
import type { StageId, ValidityProblem } from '../../engine/model'
import { neededText } from '../../engine/facts/needed'
import { tokenEstimateNote } from '../../engine/tokens/count'
import type { RunView, Side } from '../../worker/protocol'
import { LazyDetails } from '../../components/LazyDetails'
import { useStore } from '../../state/store'
import { useConfig, useFailureModes, useInfo, usePipelineActions, useRecorded, useViewActions } from '../../state/hooks'
import { calibrationParts, RAW_COUNTS } from '../../engine/usage/calibration-terms'
import { exceedsWindow, overWindowText, peakContextTokens } from '../../engine/analysis/peak-context'
import { windowOf } from '../../engine/models'
import { problemCount, selectAfterMode, selectShownRun } from '../../state/selectors'
import { neededLineState } from './needed-line'
import { PassList } from './PassList'
import { ReworkList } from './ReworkList'
import { SavePngButton } from '../export/SavePngButton'
import './totals.css'


/** The change kind a stage's colour is taken from: the first kind its definition says it produces. */
function stageKind(stage: StageId): string {
  return stageDefinition(stage).produces[0] ?? 'changed'
}

/** Title of a total that sums an estimate. */
const TOTAL_ESTIMATE = tokenEstimateNote()

/**
 * Tokens and messages before → after, % saved, per-stage contribution, passes, validity, in one
 * row; the pass list, re-work, validity problems and `children` (more disclosures: warnings,
 * costs) are disclosures after it, each opening to the full width. In Recorded mode all of it is
 * about what the agent kept; in Recorded vs simulated mode a second line sets both Afters side by side.
 */
export function TotalsBar({ children }: { children?: ReactNode }) {
  const run = useStore(selectShownRun)
  const mode = useStore(selectAfterMode)
  // What "Save as PNG" captures: the badge, the totals and the savings per stage, not the disclosures.
  const cardRef = useRef<HTMLElement>(null)
  if (!run) return null
  const showsRecorded = mode === 'recorded' && run.stages.length === 0
  const { before, after } = run
  const saved = before.totals.tokens - after.totals.tokens
  const contributions = run.stages
    .map((r) => ({ stage: r.stage, saved: r.tokensBefore - r.tokensAfter, changed: r.changed }))
    .filter((c) => c.changed && c.saved !== 0)
  const positive = contributions.reduce((sum, c) => sum + Math.max(0, c.saved), 0)
  return (
    <section ref={cardRef} className="totals" data-testid="totals" aria-label="Totals">
      <div className={`badge ${saved > 0 ? 'badge--saved' : 'badge--none'}`} data-testid="tokens-saved">
        {formatPercentDelta(before.totals.tokens, after.totals.tokens)} tokens{showsRecorded ? ' (recorded)' : ''}
      </div>
      <dl className="totals__grid">
        <div>
          <dt>Tokens</dt>
          <dd>
            <span data-testid="tokens-before" title={before.totals.estimate ? TOTAL_ESTIMATE : undefined}>
              {before.totals.estimate ? '≈ ' : ''}
              {formatCount(before.totals.tokens)}
            </span>
            <span className="arrow"> → </span>
            <strong data-testid="tokens-after" title={after.totals.estimate ? TOTAL_ESTIMATE : undefined}>
              {after.totals.estimate ? '≈ ' : ''}
              {formatCount(after.totals.tokens)}
            </strong>
          </dd>
        </div>
        <div>
          <dt>Messages</dt>
          <dd>
            <span data-testid="messages-before">{formatCount(before.totals.messages)}</span>
            <span className="arrow"> → </span>
            <strong data-testid="messages-after">{formatCount(after.totals.messages)}</strong>
          </dd>
        </div>
        <div>
          <dt>Passes</dt>
          <dd data-testid="passes">{formatCount(run.passes.length)}</dd>
        </div>
        <div>
          <dt>Validity</dt>
          <dd>
            <ValidityCount label="before" n={problemCount(run, 'before')} />
            <span className="arrow"> → </span>
            <ValidityCount label="after" n={problemCount(run, 'after')} />
          </dd>
        </div>
      </dl>
      {!showsRecorded && <OverWindowLine run={run} />}
      <NeededLine checks={run.checks} />
      {mode === 'versus' && <RecordedVersus />}
      <div className="totals__stages" aria-label="Savings per stage">
        {showsRecorded ? (
          <RecordedNote />
        ) : contributions.length === 0 ? (
          <span className="muted">
            No stage saved tokens.
            {run.cleanup &&
              ` The send-ready cleanup dropped ${formatCountOf(run.cleanup.messages, 'empty message')} (${formatTokenDelta(run.cleanup.tokens, 0)} tokens): providers reject empty content.`}
          </span>
        ) : (
          <>
            <div className="stackbar" aria-hidden="true">
              {contributions
                .filter((c) => c.saved > 0)
                .map((c) => (
                  <span
                    key={c.stage}
                    className={`stackbar__seg stackbar__seg--${stageKind(c.stage)}`}
                    style={{ flexGrow: c.saved / positive }}
                  />
                ))}
            </div>
            <ul className="contrib">
              {contributions.map((c) => (
                <li key={c.stage} title={`${c.stage}: ${formatTokenDelta(c.saved, 0)} tokens`}>
                  <span className={`dot dot--${stageKind(c.stage)}`} aria-hidden="true" />
                  {c.stage} <strong>{formatTokenDelta(c.saved, 0)}</strong>
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
      <div className="totals__more" data-png-skip="">
        {/* First in the line under the figures: the re-work summary gives way to it (ellipsis). */}
        <CalibrationLine run={run} />
        {(problemCount(run, 'before') > 0 || problemCount(run, 'after') > 0) && (
          <LazyDetails
            className="totals__problems"
            summary={`Validity problems: ${problemCount(run, 'before')} before, ${problemCount(run, 'after')} after`}
          >
            {() => (
              <>
                <ProblemList title="Before" side="before" problems={run.checks.before} count={problemCount(run, 'before')} />
                <ProblemList
                  title="After"
                  side={showsRecorded ? 'recorded' : 'after'}
                  problems={run.checks.after}
                  count={problemCount(run, 'after')}
                />
              </>
            )}
          </LazyDetails>
        )}
        <PassList />
        <ReworkList />
        {children}
        <SavePngButton target={cardRef} subject="totals" short />
      </div>
    </section>
  )
}

/** What a calibration's numbers mean, on the line's tooltip. */
const CALIBRATION_TERMS =
  'Overhead: tokens every request carries that the file does not show (system prompt, tool schemas, memory files), added to each request’s context. ' +
  'Ratio: the agent’s tokens per token of ours; every message’s count is multiplied by it.'

/**
 * How the figures were counted, in the engine's words (`calibrationParts`: the headline shown, the numbers on its tooltip): fitted to the file's
 * usage (with its median miss, the terms on the tooltip), the preset's overhead, by hand, or raw
 * counts (quiet; nothing at all when the file records no usage and raw counts were not chosen). The raw counts are one click away (the "raw" button, "show raw counts", sets the Token counts
 * setting to Raw) and so is the way back ("calibrate": auto).
 */
function CalibrationLine({ run }: { run: RunView }) {
  const config = useConfig()
  const { setCalibration } = usePipelineActions()
  const calibration = run.calibration ?? RAW_COUNTS
  const { headline, details } = calibrationParts(calibration, run.encoding)
  const raw = calibration.source === 'none'
  const off = config?.calibration?.mode === 'off'
  const terms =
    calibration.source === 'usage'
      ? `${CALIBRATION_TERMS} ±: the median miss of our estimate against the agent’s recorded context over the file’s requests.`
      : calibration.source === 'none'
        ? undefined
        : CALIBRATION_TERMS
  // A file with nothing to calibrate against, counted raw by default: nothing to say or switch.
  if (raw && !off) return null
  // The headline sits in the totals' row; its numbers and what they mean are on the tooltip.
  const title = [details && `${headline} (${details}).`, terms].filter(Boolean).join('\n') || undefined
  return (
    <p className={`totals__calibration${raw ? ' muted' : ''}`} data-testid="totals-calibration" data-details={details}>
      <span title={title}>{headline}</span>
      {!raw && (
        <button
          type="button"
          className="link totals__calibration-switch"
          aria-label="show raw counts"
          title={`Show the raw ${run.encoding} counts (Token counts: Raw)`}
          onClick={() => setCalibration({ mode: 'off' })}
        >
          raw
        </button>
      )}
      {raw && off && (
        <button type="button" className="link totals__calibration-switch" onClick={() => setCalibration({ mode: 'auto' })}>
          calibrate
        </button>
      )}
    </p>
  )
}

/**
 * "Peak context 212,000 tokens: over the 200,000-token window: the agent would have failed here":
 * shown when the run's peak context (engine `peakContextTokens`) is over the model window.
 */
function OverWindowLine({ run }: { run: RunView }) {
  const window = windowOf(useConfig()?.window)
  if (!exceedsWindow(run, window)) return null
  return (
    <p className="totals__needed totals__over-window" data-testid="totals-over-window">
      <span aria-hidden="true">⚠ </span>
      Peak context {formatCount(peakContextTokens(run))} tokens: {overWindowText(window)}
    </p>
  )
}

/**
 * "2 facts were needed after compaction removed them: 94107, ORD-58213": the facts the engine's
 * over-compression warnings name as removed by a pass and needed by a later message
 * (`neededLineState`). On a run whose checks come after its view, "Checking…" holds the line's
 * place until they do.
 */
function NeededLine({ checks }: { checks: RunView['checks'] }) {
  const line = neededLineState(checks, useFailureModes())
  if (!line) return null
  if (line.state === 'checking') {
    return (
      <p className="totals__needed totals__needed--pending muted" data-testid="totals-needed-pending">
        Checking which facts were needed after compaction…
      </p>
    )
  }
  if (line.state === 'none') {
    return (
      <p className="totals__needed totals__needed--none muted" data-testid="totals-needed">
        No fact compaction removed was needed later
      </p>
    )
  }
  return (
    <p className="totals__needed" data-testid="totals-needed" title="See the over-compression warnings and the Facts tab">
      <span aria-hidden="true">⚠ </span>
      {neededText(line.facts)}
    </p>
  )
}

/** Which recorded compaction the Recorded mode shows, with the agent's own token figures. */
function RecordedNote() {
  const info = useInfo()
  const { recorded } = useRecorded()
  if (!info || !recorded) return null
  const c = info.recordedCompactions[recorded.compaction]
  if (!c) return null
  const own =
    c.tokensBefore !== undefined
      ? ` The agent counted ${formatCount(c.tokensBefore)}${c.tokensAfter !== undefined ? ` → ${formatCount(c.tokensAfter)}` : ''} tokens with its own tokenizer.`
      : ''
  return (
    <span className="muted" data-testid="recorded-note">
      Recorded compaction {recorded.compaction + 1} of {info.recordedCompactions.length}
      {c.trigger ? ` (${c.trigger})` : ''}: what the agent really kept, counted like a simulation.{own}
    </span>
  )
}

/** Recorded vs simulated: both Afters' messages and tokens, and which messages each kept verbatim. */
function RecordedVersus() {
  const { recorded } = useRecorded()
  const comparison = recorded?.comparison
  if (!comparison) {
    return <div className="versus muted">Comparing with the recorded compaction…</div>
  }
  const { keptVerbatim: k } = comparison
  return (
    <dl className="versus" data-testid="versus-totals" aria-label="Recorded vs simulated">
      <div>
        <dt>Recorded After</dt>
        <dd>
          <strong data-testid="versus-recorded-tokens">{formatCount(comparison.recorded.tokens)}</strong> tokens ·{' '}
          {formatCountOf(comparison.recorded.messages, 'message')}
        </dd>
      </div>
      <div>
        <dt>Simulated After</dt>
        <dd>
          <strong data-testid="versus-simulated-tokens">{formatCount(comparison.simulated.tokens)}</strong> tokens ·{' '}
          {formatCountOf(comparison.simulated.messages, 'message')}
        </dd>
      </div>
      <div>
        <dt>Kept verbatim</dt>
        <dd>
          {formatCount(k.both.length)} by both · {formatCount(k.recordedOnly.length)} only recorded ·{' '}
          {formatCount(k.simulatedOnly.length)} only simulated
        </dd>
      </div>
    </dl>
  )
}

function ValidityCount({ label, n }: { label: string; n: number }) {
  return (
    <span
      className={n === 0 ? 'valid valid--ok' : 'valid valid--bad'}
      data-testid={`problems-${label}`}
      title={`${n} validity problem${n === 1 ? '' : 's'} ${label}`}
    >
      {n === 0 ? '✓ valid' : `⚠ ${n} problem${n === 1 ? '' : 's'}`}
    </span>
  )
}

/** A side's validity problems as the run sent them (the first `PROBLEMS_SENT`), and how many more it has. */
function ProblemList({ title, side, problems, count }: { title: string; side: Side; problems: ValidityProblem[]; count: number }) {
  const { selectRow } = useViewActions()
  if (problems.length === 0) return null
  return (
    <div>
      <h3>{title}</h3>
      <ul>
        {problems.map((p, i) => (
          <li key={i}>
            <code>{p.rule}</code> {p.message}{' '}
            {p.messageIds.map((id) => (
              <button key={id} type="button" className="link" onClick={() => selectRow({ side, id, reveal: true })}>
                {id}
              </button>
            ))}
          </li>
        ))}
        {count > problems.length && <li className="muted">… and {formatCountOf(count - problems.length, 'more')}</li>}
      </ul>
    </div>
  )
}

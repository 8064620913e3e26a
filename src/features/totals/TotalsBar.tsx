import { formatCount, formatPercentChange } from '../../components/format'
import type { ValidityProblem } from '../../engine/model'
import { useStore } from '../../state/store'
import { selectRun, selectTokensSavedPercent } from '../../state/selectors'
import { PassList } from './PassList'

/** Tokens and messages before → after, % saved, per-stage contribution, passes, validity. */
export function TotalsBar() {
  const run = useStore(selectRun)
  const percent = useStore(selectTokensSavedPercent)
  if (!run) return null
  const { before, after } = run
  const saved = before.totals.tokens - after.totals.tokens
  const contributions = run.stages
    .map((r) => ({ stage: r.stage, saved: r.tokensBefore - r.tokensAfter, changed: r.changed }))
    .filter((c) => c.changed && c.saved !== 0)
  const positive = contributions.reduce((sum, c) => sum + Math.max(0, c.saved), 0)
  return (
    <section className="totals" data-testid="totals" aria-label="Totals">
      <div className={`badge ${saved > 0 ? 'badge--saved' : 'badge--none'}`} data-testid="tokens-saved">
        {formatPercentChange(percent ?? 0)} tokens
      </div>
      <dl className="totals__grid">
        <div>
          <dt>Tokens</dt>
          <dd>
            <span data-testid="tokens-before">{formatCount(before.totals.tokens)}</span>
            <span className="arrow"> → </span>
            <strong data-testid="tokens-after">{formatCount(after.totals.tokens)}</strong>
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
          <dd data-testid="passes">{run.passes.length}</dd>
        </div>
        <div>
          <dt>Validity</dt>
          <dd>
            <ValidityCount label="before" problems={run.checks.before} />
            <span className="arrow"> → </span>
            <ValidityCount label="after" problems={run.checks.after} />
          </dd>
        </div>
      </dl>
      <div className="totals__stages" aria-label="Savings per stage">
        {contributions.length === 0 ? (
          <span className="muted">No stage saved tokens.</span>
        ) : (
          <>
            <div className="stackbar" aria-hidden="true">
              {contributions
                .filter((c) => c.saved > 0)
                .map((c) => (
                  <span
                    key={c.stage}
                    className={`stackbar__seg stackbar__seg--${c.stage}`}
                    style={{ flexGrow: c.saved / positive }}
                  />
                ))}
            </div>
            <ul className="contrib">
              {contributions.map((c) => (
                <li key={c.stage}>
                  <span className={`dot dot--${c.stage}`} aria-hidden="true" />
                  {c.stage} <strong>{c.saved > 0 ? '−' : '+'}{formatCount(Math.abs(c.saved))}</strong>
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
      {(run.checks.before.length > 0 || run.checks.after.length > 0) && (
        <details className="totals__problems">
          <summary>
            Validity problems: {run.checks.before.length} before, {run.checks.after.length} after
          </summary>
          <ProblemList title="Before" problems={run.checks.before} />
          <ProblemList title="After" problems={run.checks.after} />
        </details>
      )}
      <PassList />
    </section>
  )
}

function ValidityCount({ label, problems }: { label: string; problems: ValidityProblem[] }) {
  const n = problems.length
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

function ProblemList({ title, problems }: { title: string; problems: ValidityProblem[] }) {
  const selectRow = useStore((s) => s.selectRow)
  if (problems.length === 0) return null
  const side = title === 'Before' ? 'before' : 'after'
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
      </ul>
    </div>
  )
}

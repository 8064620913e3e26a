import { useState } from 'react'
import { formatCount, formatCountOf } from '../../components/format'
import { LazyDetails } from '../../components/LazyDetails'
import { passName } from '../../components/kinds'
import type { TriggerDecision } from '../../engine/model'
import { describeDecision } from '../../engine/stages/triggers'
import { goToPass } from '../compare/compare-keys'
import { useStore } from '../../state/store'
import { useRunActions } from '../../state/hooks'
import { passTextKey } from '../../state/slices/run'
import { selectPasses, selectShownRun } from '../../state/selectors'
import type { PassMeta } from '../../worker/protocol'

/** At most this many held check points are listed (a guard can hold the trigger at every request after it). */
const HELD_LISTED = 200

/**
 * Every compaction pass: its name a button that goes to its boundary in Before | After (`goToPass`,
 * the step of `]`), where it fired, why (the decision that fired it, worded by the engine),
 * what it folded, tokens, and its exact prompt and summary; then the check points where the
 * trigger was reached but a guard or the plan held it. In Recorded mode the agent's own
 * compactions (`compaction k`): where each was, what it folded, the agent's token figures and
 * its summary; the file holds no prompt and no trigger decision. The items exist only while the list is
 * open: a 50 MB session has ~180 passes, and rendering them (each subscribed to the store) inside
 * the closed list cost every re-plan ~30 ms of the main thread (BENCH.md B4/B5).
 */
export function PassList() {
  const passes = useStore(selectPasses)
  const log = useStore((s) => selectShownRun(s)?.decisions)
  const list = passes ?? []
  const held = (log?.decisions ?? []).filter((d) => d.reached && !d.fired)
  const heldCount = log ? log.reached - log.fired : 0
  if (list.length === 0 && heldCount === 0) return null
  const firing = new Map<string, TriggerDecision>()
  for (const d of log?.decisions ?? []) if (d.fired && d.pass !== undefined) firing.set(`${d.stage}:${d.pass}`, d)
  const heldText = heldCount > 0 ? ` · ${formatCountOf(heldCount, 'check point')} reached the trigger but made no pass` : ''
  // A recorded view's passes are the agent's own compactions: the file records no trigger decision.
  const recorded = list.length > 0 && list.every((p) => p.stage === 'recorded')
  const summary = recorded
    ? `${formatCountOf(list.length, 'recorded compaction')} — as the agent made ${list.length === 1 ? 'it' : 'them'}`
    : `${formatCountOf(list.length, 'compaction pass', 'compaction passes')} — why ${list.length === 1 ? 'it' : 'each'} fired${heldText}`
  return (
    <LazyDetails className="passes" testId="pass-list" summary={summary}>
      {() => (
        <>
          {list.length > 0 && (
            <ol>
              {list.map((p) => (
                <PassItem key={`${p.stage}:${p.pass}`} pass={p} why={firing.get(`${p.stage}:${p.pass}`)} />
              ))}
            </ol>
          )}
          {heldCount > 0 && (
            <div className="passes__held" data-testid="pass-held" data-count={heldCount}>
              <strong>Trigger reached, no pass</strong>{' '}
              <span className="muted">(a guard or the plan held it)</span>
              <ul>
                {held.slice(0, HELD_LISTED).map((d, i) => (
                  <li key={`${d.stage}:${d.atMessage}:${i}`}>
                    <span className="muted">{d.stage}:</span> {describeDecision(d)}
                  </li>
                ))}
                {heldCount > Math.min(held.length, HELD_LISTED) && (
                  <li className="muted">… and {formatCountOf(heldCount - Math.min(held.length, HELD_LISTED), 'more')}</li>
                )}
              </ul>
            </div>
          )}
        </>
      )}
    </LazyDetails>
  )
}

function PassItem({ pass, why }: { pass: PassMeta; why: TriggerDecision | undefined }) {
  const [open, setOpen] = useState<'prompt' | 'summary' | null>(null)
  // The agent's own compaction: its prompt is not in the file; its token figures are its record's, when it has them.
  const record = useStore((s) => (pass.stage === 'recorded' ? s.info?.recordedCompactions[pass.pass - 1] : undefined))
  const own = pass.stage === 'recorded'
  const prompt = useStore((s) => s.passTexts[passTextKey('prompt', pass.stage, pass.pass)])
  // A long run's view leaves the summaries out: fetched when opened, as the prompt is.
  const fetched = useStore((s) => s.passTexts[passTextKey('summary', pass.stage, pass.pass)])
  const summary = pass.summary ?? fetched
  const { fetchPassText } = useRunActions()
  const toggle = (what: 'prompt' | 'summary') => {
    if (what === 'prompt' || pass.summary === undefined) fetchPassText(what, pass.stage, pass.pass)
    setOpen((o) => (o === what ? null : what))
  }
  return (
    <li>
      <div className="passes__line">
        <button
          type="button"
          className="passes__go"
          title="Show this pass’s boundary in Before | After (as ] does)"
          onClick={() => {
            useStore.getState().setTab('compare')
            goToPass(pass.stage, pass.pass)
          }}
        >
          {passName(pass.stage, pass.pass)}
        </button>
        {pass.stage === 'summarize' && <span className="muted">{pass.stage}</span>}
        <span>
          at message {pass.atMessage}: messages {pass.from}–{pass.upto - 1} → summary
        </span>
        {!own ? (
          <span className="muted">
            context {formatCount(pass.tokensBefore)} → {formatCount(pass.tokensAfter)} tokens
          </span>
        ) : (
          record?.tokensBefore !== undefined && (
            <span className="muted">
              the agent counted {formatCount(record.tokensBefore)}
              {record.tokensAfter !== undefined ? ` → ${formatCount(record.tokensAfter)}` : ''} tokens
              {record.trigger ? ` (${record.trigger})` : ''}
            </span>
          )
        )}
        <span className="msg__spacer" />
        {!own && (
          <button type="button" className="button button--small" aria-pressed={open === 'prompt'} onClick={() => toggle('prompt')}>
            Prompt ({formatCount(pass.promptLength)} chars)
          </button>
        )}
        <button type="button" className="button button--small" aria-pressed={open === 'summary'} onClick={() => toggle('summary')}>
          Summary
        </button>
      </div>
      {why && (
        <div className="passes__why" data-testid="pass-why">
          why: {describeDecision(why)}
        </div>
      )}
      {pass.note !== undefined && <div className="passes__why muted">{pass.note}</div>}
      {pass.kept && pass.kept.length > 0 && (
        <div className="passes__why muted">
          kept verbatim inside the range: {pass.kept.map((i) => `#${i}`).join(', ')}
        </div>
      )}
      {open === 'summary' && (
        <pre className="text text--mono passes__text">
          {summary === undefined || summary === 'loading' ? 'Loading…' : summary === 'missing' ? 'Summary unavailable.' : summary}
        </pre>
      )}
      {open === 'prompt' && (
        <pre className="text text--mono passes__text">
          {prompt === undefined || prompt === 'loading' ? 'Loading…' : prompt === 'missing' ? 'Prompt unavailable.' : prompt}
        </pre>
      )}
    </li>
  )
}

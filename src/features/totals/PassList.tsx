import { useState } from 'react'
import { formatCount, formatCountOf } from '../../components/format'
import { LazyDetails } from '../../components/LazyDetails'
import { passName } from '../../components/kinds'
import { useStore } from '../../state/store'
import { useRunActions } from '../../state/hooks'
import { selectPasses } from '../../state/selectors'
import type { PassMeta } from '../../worker/protocol'

/**
 * Every compaction pass: where it fired, what it folded, tokens, and its exact prompt and summary.
 * The items exist only while the list is open: a 50 MB session has ~180 passes, and rendering
 * them (each subscribed to the store) inside the closed list cost every re-plan ~30 ms of the
 * main thread (BENCH.md B4/B5).
 */
export function PassList() {
  const passes = useStore(selectPasses)
  if (!passes || passes.length === 0) return null
  return (
    <LazyDetails
      className="passes"
      testId="pass-list"
      summary={`${formatCountOf(passes.length, 'compaction pass', 'compaction passes')} — see each prompt and summary`}
    >
      {() => (
        <ol>
          {passes.map((p) => (
            <PassItem key={`${p.stage}:${p.pass}`} pass={p} />
          ))}
        </ol>
      )}
    </LazyDetails>
  )
}

function PassItem({ pass }: { pass: PassMeta }) {
  const [open, setOpen] = useState<'prompt' | 'summary' | null>(null)
  const prompt = useStore((s) => s.prompts[`${pass.stage}:${pass.pass}`])
  const { fetchPassPrompt } = useRunActions()
  const toggle = (what: 'prompt' | 'summary') => {
    if (what === 'prompt') fetchPassPrompt(pass.stage, pass.pass)
    setOpen((o) => (o === what ? null : what))
  }
  return (
    <li>
      <div className="passes__line">
        <strong>{passName(pass.stage, pass.pass)}</strong>
        {pass.stage === 'summarize' && <span className="muted">{pass.stage}</span>}
        <span>
          at message {pass.atMessage}: messages {pass.from}–{pass.upto - 1} → summary
        </span>
        <span className="muted">
          context {formatCount(pass.tokensBefore)} → {formatCount(pass.tokensAfter)} tokens
        </span>
        <span className="msg__spacer" />
        <button type="button" className="button button--small" aria-pressed={open === 'prompt'} onClick={() => toggle('prompt')}>
          Prompt ({formatCount(pass.promptLength)} chars)
        </button>
        <button type="button" className="button button--small" aria-pressed={open === 'summary'} onClick={() => toggle('summary')}>
          Summary
        </button>
      </div>
      {open === 'summary' && <pre className="text text--mono passes__text">{pass.summary}</pre>}
      {open === 'prompt' && (
        <pre className="text text--mono passes__text">
          {prompt === undefined || prompt === 'loading' ? 'Loading…' : prompt === 'missing' ? 'Prompt unavailable.' : prompt}
        </pre>
      )}
    </li>
  )
}

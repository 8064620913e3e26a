import { useEffect, useState } from 'react'
import { formatCount, formatCountOf } from '../../components/format'
import type { PlannedRequest } from '../../engine/summarizers/preview'
import { useSummarizer, useSummarizerActions } from '../../state/hooks'

/**
 * The "send" step: before requests go to an endpoint, how many, how many
 * tokens, to which host, and each call's exact request body (copyable). Nothing is sent until
 * Send; Cancel or Escape closes it.
 */
export function SendDialog() {
  const { plan } = useSummarizer()
  const { confirmSend, closePlan } = useSummarizerActions()
  const open = plan !== null
  useEffect(() => {
    if (!open) return
    // A modal dialog closes on Escape, as the other dialogs here do; closing never sends.
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') closePlan()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [open, closePlan])
  if (!plan) return null
  return (
    <div className="modal-backdrop">
      <div className="modal send-dialog" role="dialog" aria-modal="true" aria-labelledby="send-title" data-testid="send-dialog">
        <h2 id="send-title" className="modal__title">
          Send to {plan.host ?? 'nowhere'}?
        </h2>
        <p data-testid="send-summary">
          {plan.requestsToSend === 0
            ? 'Nothing to send: every summary is already cached.'
            : `${formatCountOf(plan.requestsToSend, 'request')} · ${formatCount(plan.tokensToSend)} tokens to ${plan.host ?? ''}`}
          {plan.model ? ` · model ${plan.model}` : ''}
        </p>
        <p className="panel__hint">
          Each request below is exactly what will be sent (the key is shown as a placeholder). Requests marked
          “estimated” fold in an earlier answer not known yet: there the offline summary stands in.
        </p>
        <ol className="send-dialog__requests">
          {plan.requests.map((r) => (
            <PlannedRequestItem key={`${r.stage}:${r.call}`} request={r} />
          ))}
        </ol>
        <div className="modal__actions">
          <button type="button" className="button" onClick={closePlan}>
            Cancel
          </button>
          <button type="button" className="button button--primary" onClick={confirmSend}>
            Send
          </button>
        </div>
      </div>
    </div>
  )
}

function PlannedRequestItem({ request }: { request: PlannedRequest }) {
  const [copied, setCopied] = useState(false)
  const text = request.http?.bodyText ?? request.prompt
  const copy = () => {
    navigator.clipboard.writeText(text).then(
      () => setCopied(true),
      () => setCopied(false),
    )
  }
  return (
    <li className="send-dialog__request" data-testid="planned-request">
      <div className="send-dialog__head">
        <strong>
          {request.stage} · call {request.call}
        </strong>{' '}
        <span className="muted">
          {formatCount(request.tokens)} tokens
          {request.http ? ` · POST ${request.http.url}` : ''}
          {request.cached ? ' · cached, not sent' : ''}
          {request.exact ? '' : ' · estimated'}
        </span>{' '}
        <button type="button" className="button button--small" onClick={copy}>
          {copied ? 'Copied' : 'Copy body'}
        </button>
      </div>
      <pre className="send-dialog__body" data-testid="planned-body">
        {text}
      </pre>
    </li>
  )
}

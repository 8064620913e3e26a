import { dismissShareNotice, useShareNotice } from './url-sync'
import './share.css'

/**
 * The notice that the settings of the link opened were shared from another transcript than the
 * one shown (their fingerprints differ); it goes when a transcript with the link's fingerprint
 * is opened, or is dismissed.
 */
export function ShareNotice() {
  const notice = useShareNotice()
  if (!notice) return null
  return (
    <div className="banner share-notice" role="status" data-testid="share-notice">
      <span className="banner__icon share-notice__icon" aria-hidden="true">
        ℹ
      </span>
      <span className="share-notice__text">
        These settings were shared from a different transcript than the one shown ({notice.shown}). Open your copy of
        that transcript to see what they saw.
      </span>
      <button type="button" className="icon-button" aria-label="Dismiss notice" onClick={dismissShareNotice}>
        ✕
      </button>
    </div>
  )
}

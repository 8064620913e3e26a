import { useState, type RefObject } from 'react'
import { useInfo } from '../../state/hooks'
import { PNG_SKIP_ATTRIBUTE, pngFileName, savePng, type PngSubject } from './png'

const SUBJECT_WORDS: Record<PngSubject, string> = {
  timeline: 'the timeline with its legend',
  heatmap: 'the heat map with its axes and legend',
  totals: 'the totals card',
}

/**
 * "Save as PNG" beside what it captures (`target`): downloads `<transcript>-<subject>.png` at twice
 * the CSS size on the theme's background; the button itself is not in the picture. A failure is
 * shown beside the button. `short` labels it "PNG" (its accessible name still says what it saves),
 * for a row with no room to spare.
 */
export function SavePngButton({
  target,
  subject,
  short = false,
}: {
  target: RefObject<HTMLElement | null>
  subject: PngSubject
  short?: boolean
}) {
  const info = useInfo()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const save = async () => {
    const el = target.current
    if (!el) return
    setBusy(true)
    setError(null)
    try {
      await savePng(el, pngFileName(info?.fileName ?? '', subject))
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e))
    } finally {
      setBusy(false)
    }
  }
  return (
    <span className="save-png" {...{ [PNG_SKIP_ATTRIBUTE]: '' }}>
      <button
        type="button"
        className="button button--small"
        data-testid={`save-png-${subject}`}
        title={`Save ${SUBJECT_WORDS[subject]} as a PNG image (2× resolution)`}
        aria-label={short ? `Save ${SUBJECT_WORDS[subject]} as PNG` : undefined}
        disabled={busy}
        onClick={() => void save()}
      >
        {busy ? 'Saving…' : short ? 'PNG' : 'Save as PNG'}
      </button>
      {error && (
        <span className="save-png__error" role="alert">
          Could not save the picture: {error}
        </span>
      )}
    </span>
  )
}

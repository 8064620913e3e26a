import { memo, useMemo } from 'react'
import { factRanges, matchRanges, textPieces, type FactHighlight } from './FactFinderText'

interface MarkedTextProps {
  text: string
  /** The finder's query (null: nothing to mark). */
  highlight: FactHighlight | null
  /** Facts of the message to make clickable (none: plain text). */
  facts?: readonly string[] | undefined
  /** Called with a clicked fact. */
  onFact?: ((fact: string) => void) | undefined
}

/**
 * Untrusted transcript text with the finder's matches in `<mark>` and the message's facts as
 * small buttons: React text nodes only, never HTML.
 */
export const MarkedText = memo(function MarkedText({ text, highlight, facts, onFact }: MarkedTextProps) {
  const pieces = useMemo(() => {
    const marks = matchRanges(text, highlight)
    const spans = facts && onFact ? factRanges(text, facts) : []
    return marks.length === 0 && spans.length === 0 ? null : textPieces(text, marks, spans)
  }, [text, highlight, facts, onFact])
  if (!pieces) return <>{text}</>
  return (
    <>
      {pieces.map((p, i) => {
        const inner = p.segments.map((s, j) =>
          s.mark ? (
            <mark key={j} className="fact-mark">
              {s.text}
            </mark>
          ) : (
            s.text
          ),
        )
        if (p.fact === undefined || !onFact) return <span key={i}>{inner}</span>
        const fact = p.fact
        return (
          <button
            key={i}
            type="button"
            className="fact-link"
            title={`Find “${fact}” in both columns`}
            onClick={(e) => {
              e.stopPropagation()
              onFact(fact)
            }}
          >
            {inner}
          </button>
        )
      })}
    </>
  )
})

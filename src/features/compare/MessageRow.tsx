import { memo, useCallback, useEffect, useRef } from 'react'
import { Chip } from '../../components/Chip'
import { RoleBadge } from '../../components/RoleBadge'
import { formatCount } from '../../components/format'
import { tokenEstimateNote } from '../../engine/tokens/count'
import { samePlainData } from '../../engine/util/plain-data'
import { explainFate, explainOrigin, fateChip, originChip } from '../../components/kinds'
import { useStore } from '../../state/store'
import { useRunActions } from '../../state/hooks'
import { detailKey } from '../../state/slices/run'
import { MarkedText } from '../facts/FactFinderMarks'
import type { FactHighlight } from '../facts/FactFinderText'
import type { MessageDetail, RowMeta, Side } from '../../worker/protocol'

interface MessageRowProps {
  side: Side
  row: RowMeta
  selected: boolean
  highlighted: boolean
  /** Occurrences of the fact finder's query in this message (0: not a match). */
  matchCount?: number
  /** The finder's query to mark in the text, for a matching row. */
  factHighlight?: FactHighlight | null
  expanded: boolean
  /** The finder's current match: the expanded text scrolls to its first mark. */
  currentMatch?: boolean
  onSelect: (id: string) => void
  onToggleExpand: (id: string) => void
}

/**
 * One message row: index, role, tokens, preview (expandable to the full text), provenance chip.
 * `data-id` and `data-side` name it for the Before | After's keyboard shortcuts.
 */
export const MessageRow = memo(function MessageRow(props: MessageRowProps) {
  const { side, row, selected, highlighted, expanded, onSelect, onToggleExpand } = props
  const { matchCount = 0, factHighlight = null, currentMatch = false } = props
  const chip = row.fate ? fateChip(row.fate) : row.origin ? originChip(row.origin) : null
  const title = row.fate ? explainFate(row.fate) : row.origin ? explainOrigin(row.origin) : undefined
  const mono = row.role === 'tool'
  const classes = ['msg', `msg--${chip?.kind ?? 'kept'}`]
  if (selected) classes.push('msg--selected')
  if (highlighted) classes.push('msg--counterpart')
  if (matchCount > 0) classes.push('msg--match')
  return (
    <div
      className={classes.join(' ')}
      role="row"
      aria-selected={selected}
      data-id={row.id}
      data-kind={chip?.kind}
      data-counterpart={highlighted || undefined}
      data-match={matchCount > 0 || undefined}
      data-side={side}
      tabIndex={0}
      onClick={() => onSelect(row.id)}
      // Enter / Space on a focused row select and expand it: the Before | After's shortcuts (shortcuts.ts).
    >
      <div className="msg__head" role="cell">
        {/* Left cluster shrinks (flags cut off first); the right cluster never leaves the column. */}
        <span className="msg__left">
        <span className="msg__index" title="Position in this column">#{row.index}</span>
        <RoleBadge role={row.role} />
        {row.toolName && <span className="msg__tool">{row.toolName}</span>}
        {row.isError && <span className="msg__error">error</span>}
        {row.flags.injected && <span className="msg__flag" title="Injected by the agent, not typed by the human">injected</span>}
        {row.flags.command && <span className="msg__flag">command</span>}
        {row.flags.compactSummary && chip?.label !== 'recorded summary' && <span className="msg__flag" title="The agent's own recorded summary">recorded summary</span>}
        {row.images > 0 && <span className="msg__flag">{row.images} image{row.images > 1 ? 's' : ''}</span>}
        {row.thinking > 0 && <span className="msg__flag">thinking</span>}
        </span>
        <span className="msg__right">
        {matchCount > 0 && (
          <span className="msg__match" title={`The fact occurs ${matchCount}× in this message`}>
            {matchCount}×
          </span>
        )}
        {chip && <Chip kind={chip.kind} label={chip.label} title={title} />}
        {row.estimated ? (
          <span className="msg__tokens msg__tokens--estimate" title="≈ estimate (UTF-8 bytes / 3.4) until exact counts arrive">
            ≈ {formatCount(row.tokens)} tok
          </span>
        ) : row.chunkedRun !== undefined ? (
          <span className="msg__tokens msg__tokens--estimate" title={tokenEstimateNote(row.chunkedRun)}>
            ≈ {formatCount(row.tokens)} tok
          </span>
        ) : (
          <span className="msg__tokens" title="Tokens">
            {formatCount(row.tokens)} tok
          </span>
        )}
        {/* A row of an import still streaming in (≈ tokens) has no full text to fetch yet. */}
        {!row.estimated && (
          <button
            type="button"
            className="icon-button msg__expand"
            aria-expanded={expanded}
            aria-label={expanded ? 'Collapse message' : 'Show full message'}
            onClick={(e) => {
              e.stopPropagation()
              onToggleExpand(row.id)
            }}
          >
            {expanded ? '▾' : '▸'}
          </button>
        )}
        </span>
      </div>
      {expanded ? (
        <MessageBody side={side} id={row.id} mono={mono} highlight={factHighlight} current={currentMatch} />
      ) : (
        <div className={mono ? 'msg__preview msg__preview--mono' : 'msg__preview'} role="cell">
          <MarkedText text={row.preview} highlight={factHighlight} />
        </div>
      )}
    </div>
  )
}, sameRowProps)

/** Memo test of a row: its other props by identity, its row by content (a re-run sends every row anew). */
function sameRowProps(a: MessageRowProps, b: MessageRowProps): boolean {
  for (const k of Object.keys(b) as (keyof MessageRowProps)[]) if (k !== 'row' && a[k] !== b[k]) return false
  return Object.keys(a).length === Object.keys(b).length && samePlainData(a.row, b.row)
}

interface BodyProps {
  side: Side
  id: string
  mono: boolean
  highlight: FactHighlight | null
  /** The finder's current match: scroll the body to its first mark once the text is in. */
  current: boolean
}

function MessageBody({ side, id, mono, highlight, current }: BodyProps) {
  const entry = useStore((s) => s.details[detailKey(side, id)])
  const { fetchDetail } = useRunActions()
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (entry === undefined) fetchDetail(side, id)
  }, [entry, fetchDetail, side, id])
  useEffect(() => {
    // The body scrolls on its own (a long tool output): bring the mark to its middle.
    const body = ref.current?.querySelector<HTMLElement>('.msg__body')
    const mark = body?.querySelector('mark.fact-mark')
    if (!current || !body || !mark) return
    const b = body.getBoundingClientRect()
    const m = mark.getBoundingClientRect()
    body.scrollTop += m.top - b.top - (b.height - m.height) / 2
  }, [current, entry, highlight])
  if (entry === undefined || entry === 'loading') return <div className="msg__body msg__body--loading">Loading…</div>
  if (entry === 'missing') return <div className="msg__body">Full text unavailable.</div>
  return (
    <div ref={ref} className="msg__body-wrap">
      <DetailView detail={entry} mono={mono} highlight={highlight} />
    </div>
  )
}

/** Full content as text only (never HTML): tool output in monospace, images as labels. */
function DetailView(props: { detail: MessageDetail; mono: boolean; highlight: FactHighlight | null }) {
  const { detail, mono, highlight } = props
  // Click a fact: the engine's fact spans are underlined; a click searches it.
  const setFactQuery = useStore((s) => s.setFactQuery)
  const onFact = useCallback((fact: string) => setFactQuery(fact, { immediate: true, regex: false }), [setFactQuery])
  const mark = (text: string) => <MarkedText text={text} highlight={highlight} facts={detail.facts} onFact={onFact} />
  return (
    <div className="msg__body" role="cell" onClick={(e) => e.stopPropagation()}>
      {detail.blocks.length === 0 && detail.toolCalls.length === 0 && <p className="muted">(empty)</p>}
      {detail.blocks.map((b, i) => {
        switch (b.kind) {
          case 'text':
            return (
              <pre key={i} className={mono ? 'text text--mono' : 'text'}>
                {mark(b.text)}
              </pre>
            )
          case 'image':
            return (
              <div key={i} className="block-label">
                {b.label}
              </div>
            )
          case 'thinking':
            return (
              <div key={i} className="thinking">
                <div className="block-label">thinking{b.note ? ` — ${b.note}` : ''}</div>
                {b.text && <pre className="text">{mark(b.text)}</pre>}
              </div>
            )
          case 'opaque':
            return (
              <div key={i}>
                <div className="block-label">{b.label}</div>
                <pre className="text text--mono">{b.json}</pre>
              </div>
            )
        }
      })}
      {detail.toolCalls.map((call) => (
        <div key={call.id} className="toolcall">
          <div className="block-label">
            tool call <strong>{call.name}</strong> <span className="muted">{call.id}</span>
          </div>
          <pre className="text text--mono">{mark(call.arguments)}</pre>
        </div>
      ))}
      {(detail.toolCallId || detail.source?.line !== undefined) && (
        <div className="msg__meta muted">
          {detail.toolCallId && <span>answers {detail.toolCallId}</span>}
          {detail.source?.line !== undefined && <span>source line {detail.source.line}</span>}
        </div>
      )}
    </div>
  )
}

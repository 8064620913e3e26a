import { memo, useCallback, useMemo } from 'react'
import { formatCount, formatCountOf } from '../../components/format'
import type { LoadSlice } from '../../state/slices/load'
import { useStore } from '../../state/store'
import type { Side } from '../../worker/protocol'
import { buildBeforeItems } from './column-items'
import { MessageColumn } from './MessageColumn'
import './compare.css'

const NO_ROWS: ReadonlySet<string> = new Set()

/**
 * The first Before rows of a large file while it is still imported and counted (BENCH B10):
 * read-only, tokens marked "≈ estimate" (bytes / 3.4); the first run's columns replace it. Renders
 * again only for another head: the shell re-renders at every store change it reads while the
 * file is read.
 */
export const ImportHeadView = memo(function ImportHeadView({ head }: { head: NonNullable<LoadSlice['importHead']> }) {
  const items = useMemo(() => buildBeforeItems(head.rows, [], []), [head])
  const estimate = useMemo(() => head.rows.reduce((n, r) => n + r.tokens, 0), [head])
  // Nothing to select yet: the rows' ids belong to the head import, not to the final transcript.
  const ignore = useCallback((_side: Side, _id: string) => {}, [])
  // What the rest waits for: the read, the first run, or (a run cancelled) a run not started.
  const reading = useStore((s) => s.importProgress !== null)
  const running = useStore((s) => s.runStatus === 'running')
  const rest = reading
    ? 'while the rest is read and counted'
    : running
      ? 'while the tokens are counted and the pipeline runs'
      : '· the rest is shown once the pipeline runs'
  return (
    <div className="compare compare--head" data-testid="import-head">
      <div className="compare__toolbar">
        <span className="muted" role="status">
          First {formatCountOf(head.rows.length, 'message')} of {head.fileName} {rest} · tokens ≈ estimate until exact
          counts arrive
        </span>
      </div>
      <div className="compare__columns compare__columns--single">
        <MessageColumn
          side="before"
          title="Before"
          subtitle={`first ${formatCount(head.rows.length)} messages · ≈ ${formatCount(estimate)} tokens (estimate)`}
          items={items}
          selectedId={null}
          highlighted={NO_ROWS}
          onSelect={ignore}
        />
      </div>
    </div>
  )
})

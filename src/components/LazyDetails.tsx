import { useState, type ReactNode } from 'react'

/**
 * A `<details>` whose body is rendered only while it is open: a closed list of thousands of
 * items (forks, import warnings, compaction passes) costs nothing on every render. `summary` is
 * the always-visible line; `children` builds the body when it is needed.
 */
export function LazyDetails(props: {
  className: string
  testId?: string
  summary: ReactNode
  summaryClassName?: string
  children: () => ReactNode
}) {
  const { className, testId, summary, summaryClassName, children } = props
  const [open, setOpen] = useState(false)
  return (
    <details className={className} data-testid={testId} open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary className={summaryClassName}>{summary}</summary>
      {open && children()}
    </details>
  )
}

import { KIND_INFO, type ChangeKind } from './kinds'

interface ChipProps {
  kind: ChangeKind
  label: string
  title?: string
}

/** A provenance chip: colour, icon and a text label, so it never relies on colour alone. */
export function Chip({ kind, label, title }: ChipProps) {
  return (
    <span className={`chip chip--${kind}`} data-kind={kind} title={title ?? KIND_INFO[kind].explain}>
      <span className="chip__icon" aria-hidden="true">
        {KIND_INFO[kind].icon}
      </span>
      {label}
    </span>
  )
}

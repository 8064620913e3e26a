import { KIND_INFO, type ChangeKind } from './kinds'

interface ChipProps {
  kind: ChangeKind
  label: string
  title?: string
}

/**
 * A provenance chip: colour, icon and a text label, so it never relies on colour alone.
 * The icon is drawn by CSS from `data-icon`, so the chip's text is exactly its label. Where the
 * room is short the label ends in an ellipsis; the tooltip always starts with the whole label,
 * then `title` (or the kind's explanation).
 */
export function Chip({ kind, label, title }: ChipProps) {
  return (
    <span
      className={`chip chip--${kind}`}
      data-kind={kind}
      data-icon={KIND_INFO[kind].icon}
      title={`${label} — ${title ?? KIND_INFO[kind].explain}`}
    >
      {label}
    </span>
  )
}

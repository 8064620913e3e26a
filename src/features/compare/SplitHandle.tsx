import type { RefObject } from 'react'

interface SplitHandleProps {
  /** Fraction of the width given to the left column, 0.2–0.8. */
  value: number
  onChange: (value: number) => void
  containerRef: RefObject<HTMLDivElement | null>
}

const clamp = (v: number) => Math.min(0.8, Math.max(0.2, v))

/** The draggable divider between Before and After (pointer or arrow keys). */
export function SplitHandle({ value, onChange, containerRef }: SplitHandleProps) {
  return (
    <div
      className="split"
      role="separator"
      aria-orientation="vertical"
      aria-label="Resize columns"
      aria-valuemin={20}
      aria-valuemax={80}
      aria-valuenow={Math.round(value * 100)}
      tabIndex={0}
      onPointerDown={(e) => {
        const el = containerRef.current
        if (!el) return
        e.currentTarget.setPointerCapture(e.pointerId)
        const rect = el.getBoundingClientRect()
        const move = (ev: PointerEvent) => onChange(clamp((ev.clientX - rect.left) / rect.width))
        const up = () => {
          window.removeEventListener('pointermove', move)
          window.removeEventListener('pointerup', up)
        }
        window.addEventListener('pointermove', move)
        window.addEventListener('pointerup', up)
      }}
      onDoubleClick={() => onChange(0.5)}
      onKeyDown={(e) => {
        if (e.key === 'ArrowLeft') onChange(clamp(value - 0.05))
        else if (e.key === 'ArrowRight') onChange(clamp(value + 0.05))
      }}
    >
      <span className="split__grip" />
    </div>
  )
}

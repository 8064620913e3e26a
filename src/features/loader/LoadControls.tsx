import { useEffect, useRef, useState } from 'react'
import { useLoad, useLoadActions } from '../../state/hooks'
import { PasteDialog } from './PasteDialog'
import { openInputFile } from './session-open'
import './loader.css'

/** Header load controls: file picker (a transcript or a session file), paste, and the sample gallery menu. */
export function LoadControls() {
  const [pasteOpen, setPasteOpen] = useState(false)
  const [galleryOpen, setGalleryOpen] = useState(false)
  return (
    <div className="load-controls">
      <label className="button button--primary file-button">
        <input
          type="file"
          className="visually-hidden"
          aria-label="Open transcript…"
          accept=".json,.jsonl,.ndjson,.txt,.md,.traj,.yaml,.yml,.eval,.zip,application/json"
          onChange={(e) => {
            const file = e.target.files?.[0]
            if (file) void openInputFile(file)
            e.target.value = '' // picking the same file again must reload it
          }}
        />
        <span aria-hidden="true">Open transcript…</span>
      </label>
      <button type="button" className="button" onClick={() => setPasteOpen(true)}>
        Paste
      </button>
      <div className="menu">
        <button
          type="button"
          className="button"
          aria-haspopup="true"
          aria-expanded={galleryOpen}
          onClick={() => setGalleryOpen((o) => !o)}
        >
          Samples ▾
        </button>
        {galleryOpen && <SampleMenu onClose={() => setGalleryOpen(false)} />}
      </div>
      {pasteOpen && <PasteDialog onClose={() => setPasteOpen(false)} />}
    </div>
  )
}

function SampleMenu({ onClose }: { onClose: () => void }) {
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const onDown = (e: PointerEvent) => {
      if (ref.current && !ref.current.parentElement?.contains(e.target as Node)) onClose()
    }
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose()
    window.addEventListener('pointerdown', onDown)
    window.addEventListener('keydown', onKey)
    return () => {
      window.removeEventListener('pointerdown', onDown)
      window.removeEventListener('keydown', onKey)
    }
  }, [onClose])
  return (
    <div ref={ref} className="menu__popover">
      <SampleGallery onPicked={onClose} />
    </div>
  )
}

/** Cards of the bundled samples (public/samples/index.json). */
export function SampleGallery({ onPicked }: { onPicked?: () => void }) {
  const { samples, source } = useLoad()
  const { loadSample } = useLoadActions()
  const current = source?.kind === 'sample' ? source.file : null
  if (samples.length === 0) return <p className="muted">No bundled samples found.</p>
  return (
    <ul className="gallery" data-testid="sample-gallery" aria-label="Sample transcripts">
      {samples.map((s) => (
        <li key={s.file}>
          <button
            type="button"
            className={s.file === current ? 'card card--current' : 'card'}
            aria-current={s.file === current || undefined}
            onClick={() => {
              void loadSample(s.file)
              onPicked?.()
            }}
          >
            <span className="card__title">{s.label}</span>
            <span className="card__format">{s.format}</span>
            <span className="card__desc">{s.description}</span>
          </button>
        </li>
      ))}
    </ul>
  )
}

import './settings.css'
import { useEffect, useState } from 'react'
import { useStore } from '../../state/store'
import { usePipeline, usePipelineActions, useUndoRedo } from '../../state/hooks'
import { copySettingsLink } from './url-sync'
import { useUndoShortcuts } from './undo-shortcuts'

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform)
const MOD = isMac ? '⌘' : 'Ctrl+'

/**
 * The pipeline panel's header tools: Undo / Redo of setting changes (also Ctrl/Cmd+Z,
 * Ctrl/Cmd+Shift+Z, Ctrl+Y) and Copy link (the address with the settings in its hash), plus the
 * one-line notice when a link's settings were partly ignored.
 */
export function SettingsBar() {
  useUndoShortcuts()
  const { canUndo, canRedo } = useUndoRedo()
  const { undoConfig: undo, redoConfig: redo } = usePipelineActions()
  const hasConfig = useStore((s) => s.config !== null)
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle')

  useEffect(() => {
    if (copy === 'idle') return
    const t = setTimeout(() => setCopy('idle'), 2000)
    return () => clearTimeout(t)
  }, [copy])

  return (
    <div className="settings-bar">
      <button
        type="button"
        className="button button--small"
        disabled={!canUndo}
        title={`Undo the last settings change (${MOD}Z)`}
        onClick={undo}
      >
        <span aria-hidden="true">↶</span> Undo
      </button>
      <button
        type="button"
        className="button button--small"
        disabled={!canRedo}
        title={`Redo (${MOD}Shift+Z${isMac ? '' : ' or Ctrl+Y'})`}
        onClick={redo}
      >
        <span aria-hidden="true">↷</span> Redo
      </button>
      <button
        type="button"
        className="button button--small settings-bar__copy"
        disabled={!hasConfig}
        title="Copy this page's address with the pipeline settings (not the transcript, never an API key)"
        onClick={() => void copySettingsLink().then((ok) => setCopy(ok ? 'copied' : 'failed'))}
      >
        {copy === 'copied' ? 'Link copied' : 'Copy link'}
      </button>
      <span className="visually-hidden" role="status">
        {copy === 'copied' ? 'Link copied' : copy === 'failed' ? 'Could not copy: copy the address bar instead' : ''}
      </span>
      {copy === 'failed' && <p className="settings-bar__failed">Could not copy: copy the address bar instead.</p>}
    </div>
  )
}

/** The one-line notice about settings of an opened link that were not used. */
export function ConfigNotice() {
  const { configNotice: notice } = usePipeline()
  const { dismissConfigNotice: dismiss } = usePipelineActions()
  if (!notice) return null
  return (
    <div className="config-notice" role="status" data-testid="config-notice">
      <span className="config-notice__text" title={notice}>
        {notice}
      </span>
      <button type="button" className="icon-button" aria-label="Dismiss" onClick={dismiss}>
        ×
      </button>
    </div>
  )
}

import './settings.css'
import { useEffect, useId, useState } from 'react'
import { formatCount } from '../../components/format'
import type { CalibrationSetting } from '../../engine/model'
import { MODEL_WINDOWS, modelWithWindow, windowOf } from '../../engine/models'
import { useStore } from '../../state/store'
import { useConfig, usePipeline, usePipelineActions, useUndoRedo } from '../../state/hooks'
import { selectShownRun } from '../../state/selectors'
import { CALIBRATION_RATIO_RANGE } from '../../engine/usage/calibration-terms'
import { isCalibrationOverhead, isCalibrationRatio } from './url-config'
import { copySettingsLink } from './url-sync'
import { useUndoShortcuts } from './undo-shortcuts'

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform)
const MOD = isMac ? '⌘' : 'Ctrl+'

/** What a copied link carries, said on the button's tooltip and after copying. */
const SETTINGS_ONLY = 'Settings only — the other person opens their own copy of the transcript.'

/**
 * The pipeline panel's header tools: Undo / Redo of setting changes (also Ctrl/Cmd+Z,
 * Ctrl/Cmd+Shift+Z, Ctrl+Y) and Copy link (the address with the settings in its hash), plus the
 * one-line notice when a link's settings were partly ignored. Copy link's confirmation (or its
 * failure) stays, in a polite live region, until the settings change or the next click elsewhere
 * on the page: the link it describes is stale after either, and a confirmation on a timer is
 * easily missed.
 */
export function SettingsBar() {
  useUndoShortcuts()
  const { canUndo, canRedo } = useUndoRedo()
  const { undoConfig: undo, redoConfig: redo } = usePipelineActions()
  const config = useStore((s) => s.config)
  const hasConfig = config !== null
  // The outcome of the last copy and the settings it copied: shown while those are still the settings.
  const [copied, setCopied] = useState<{ ok: boolean; config: unknown } | null>(null)
  const copy = copied === null || copied.config !== config ? 'idle' : copied.ok ? 'copied' : 'failed'

  useEffect(() => {
    if (copy === 'idle') return
    const onPointerDown = () => setCopied(null)
    document.addEventListener('pointerdown', onPointerDown)
    return () => document.removeEventListener('pointerdown', onPointerDown)
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
        title={`${SETTINGS_ONLY} The link holds the pipeline settings, never the transcript or an API key.`}
        onClick={() => void copySettingsLink().then((ok) => setCopied({ ok, config }))}
      >
        {copy === 'copied' ? 'Link copied' : 'Copy link'}
      </button>
      <div className="settings-bar__status" role="status" data-testid="copy-status">
        {copy === 'copied' && (
          <>
            <span className="visually-hidden">Link copied. </span>
            <p className="settings-bar__copied" data-testid="link-copied">
              {SETTINGS_ONLY}
            </p>
          </>
        )}
        {copy === 'failed' && <p className="settings-bar__failed">Could not copy: copy the address bar instead.</p>}
      </div>
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

const CUSTOM = 'custom'

/**
 * The model's context window (`PipelineConfig.window`, tokens), shown beside the encoding: a
 * list of common models (engine/models.ts `MODEL_WINDOWS`) and "custom" with a number box (a
 * whole number of tokens ≥ 1,000; anything else leaves the window as it was). Token triggers
 * that are a share of the window, and every "% of window" beside a token param, read it.
 */
export function WindowSetting() {
  const config = useConfig()
  const { setWindow } = usePipelineActions()
  const id = useId()
  // Several models share a window (o3 and Claude: 200K): the one picked stays shown while it fits.
  const [picked, setPicked] = useState<string | null>(null)
  const [draft, setDraft] = useState<string | null>(null)
  if (!config) return null
  const window = windowOf(config.window)
  const pickedModel = MODEL_WINDOWS.find((m) => m.id === picked)
  const chosen =
    picked === CUSTOM
      ? CUSTOM
      : pickedModel?.window === window
        ? pickedModel.id
        : (modelWithWindow(window)?.id ?? CUSTOM)
  return (
    <div className="field window-setting" data-testid="window-setting">
      <label htmlFor={id}>Model window</label>
      <span className="window-setting__row">
        <select
          id={id}
          value={chosen}
          title="The model's context window: token triggers that are a share of it, and each token setting's % of window, read it"
          onChange={(e) => {
            const model = MODEL_WINDOWS.find((m) => m.id === e.target.value)
            setPicked(e.target.value)
            setDraft(null)
            if (model) setWindow(model.window)
          }}
        >
          {MODEL_WINDOWS.map((m) => (
            <option key={m.id} value={m.id}>
              {m.name}
            </option>
          ))}
          <option value={CUSTOM}>Custom…</option>
        </select>
        {chosen === CUSTOM ? (
          <input
            className="number-input window-setting__number"
            type="number"
            min={1000}
            step={1000}
            value={draft ?? String(window)}
            aria-label="Model window in tokens"
            onChange={(e) => {
              setDraft(e.target.value)
              const n = Number(e.target.value)
              if (windowOf(n) === n) setWindow(n)
            }}
            onBlur={() => setDraft(null)}
          />
        ) : (
          <span className="muted window-setting__tokens" data-testid="window-tokens">
            {formatCount(window)} tokens
          </span>
        )}
      </span>
      {draft !== null && windowOf(Number(draft)) !== Number(draft) && (
        <span className="window-setting__note" role="status">
          A window is a whole number of tokens, at least 1,000: still {formatCount(window)}.
        </span>
      )}
    </div>
  )
}

/** The settings' words for each token-count mode (`CalibrationSetting.mode`). */
const COUNT_MODES: readonly { mode: CalibrationSetting['mode']; label: (encoding: string) => string }[] = [
  { mode: 'auto', label: () => 'Calibrated (auto)' },
  { mode: 'manual', label: () => 'By hand' },
  { mode: 'off', label: (encoding) => `Raw ${encoding}` },
]

/**
 * Token counts (`PipelineConfig.calibration`), beside the encoding and the window: calibrated to
 * the file's recorded usage (else the agent preset's overhead), by hand (an overhead in tokens
 * every request carries and the agent's tokens per token of ours), or the encoding's raw counts.
 * Choosing "By hand" starts from the numbers the last run counted with. A typed overhead that is
 * not whole tokens ≥ 0, or a ratio outside 0.5–2.5, leaves the setting as it was and says so.
 */
export function TokenCountsSetting() {
  const config = useConfig()
  const run = useStore(selectShownRun)
  const { setCalibration } = usePipelineActions()
  const id = useId()
  const [draft, setDraft] = useState<{ field: 'overhead' | 'ratio'; text: string } | null>(null)
  if (!config) return null
  const setting = config.calibration ?? { mode: 'auto' as const }
  const used = run?.calibration
  const overhead = setting.overhead ?? used?.overhead ?? 0
  const ratio = setting.ratio ?? used?.ratio ?? 1
  const valid = (field: 'overhead' | 'ratio', n: number) => (field === 'overhead' ? isCalibrationOverhead(n) : isCalibrationRatio(n))
  const input = (field: 'overhead' | 'ratio', value: number, props: { min: number; max?: number; step: number; label: string; title: string }) => (
    <input
      className="number-input token-counts__number"
      type="number"
      min={props.min}
      max={props.max}
      step={props.step}
      value={draft?.field === field ? draft.text : String(value)}
      aria-label={props.label}
      title={props.title}
      data-testid={`calibration-${field}`}
      onChange={(e) => {
        setDraft({ field, text: e.target.value })
        const n = Number(e.target.value)
        if (e.target.value.trim() !== '' && valid(field, n)) setCalibration({ [field]: n })
      }}
      onBlur={() => setDraft(null)}
    />
  )
  return (
    <div className="field window-setting token-counts" data-testid="token-counts-setting">
      <label htmlFor={id}>Token counts</label>
      <span className="window-setting__row">
        <select
          id={id}
          value={setting.mode}
          title="How the context is counted: as the agent counted it (fitted to the file's recorded usage, else the agent preset's overhead), with an overhead and ratio you set, or the encoding's raw counts"
          onChange={(e) => {
            const mode = e.target.value as CalibrationSetting['mode']
            setDraft(null)
            setCalibration(mode === 'manual' ? { mode, overhead, ratio } : { mode })
          }}
        >
          {COUNT_MODES.map((m) => (
            <option key={m.mode} value={m.mode}>
              {m.label(config.encoding)}
            </option>
          ))}
        </select>
      </span>
      {setting.mode === 'manual' && (
        <span className="window-setting__row token-counts__hand">
          {input('overhead', overhead, {
            min: 0,
            step: 1000,
            label: 'Overhead in tokens',
            title: 'Tokens every request carries that the file does not show (system prompt, tool schemas, memory files): added to each request’s context',
          })}
          <span className="muted">+</span>
          {input('ratio', ratio, {
            min: CALIBRATION_RATIO_RANGE.min,
            max: CALIBRATION_RATIO_RANGE.max,
            step: 0.01,
            label: 'Tokenizer ratio',
            title: 'The agent’s tokens per token of ours: every message’s count is multiplied by it',
          })}
          <span className="muted">× ours</span>
        </span>
      )}
      {draft !== null && !(draft.text.trim() !== '' && valid(draft.field, Number(draft.text))) && (
        <span className="window-setting__note" role="status">
          {draft.field === 'overhead'
            ? `An overhead is a whole number of tokens, at least 0: still ${formatCount(overhead)}.`
            : `A ratio is between ${CALIBRATION_RATIO_RANGE.min} and ${CALIBRATION_RATIO_RANGE.max}: still ${ratio}.`}
        </span>
      )}
    </div>
  )
}

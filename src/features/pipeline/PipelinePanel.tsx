import { Fragment } from 'react'
import { formatCount, formatCountOf, formatNumbersIn } from '../../components/format'
import { formatTokenDelta } from '../../engine/delta'
import type { Encoding, StageConfig, StageReport } from '../../engine/model'
import { windowOf } from '../../engine/models'
import { summarizeTrigger, unusedParam } from '../../engine/stages/triggers'
import { useConfig, useInfo, usePipelineActions, useRun } from '../../state/hooks'
import { SummarizerSettings } from '../summarizer/SummarizerSettings'
import { SummarizerStageError } from '../summarizer/SummarizerStatus'
import { ExcludeToolsControl } from './ExcludeToolsControl'
import { ChoiceControl, FlagControl, ParamControl } from './ParamControl'
import { effectiveParam, STAGE_CONTROLS, STAGE_INFO, windowShare } from './params'
import { PresetPicker } from './PresetPicker'
import { ConfigNotice, SettingsBar, TokenCountsSetting, WindowSetting } from './SettingsBar'
import './pipeline.css'

/**
 * Stages on/off and order, every param from its definition (count: slider + number, flag:
 * checkbox, choice: list), encoding and summarizer (SPEC §6). `id` names the sidebar for the
 * header's toggle; `hidden` collapses it (it stays mounted, so its state survives).
 */
export function PipelinePanel({ id, hidden = false }: { id?: string; hidden?: boolean }) {
  const config = useConfig()
  const { run } = useRun()
  const info = useInfo()
  const { setEncoding } = usePipelineActions()
  if (!config)
    return (
      <aside id={id} hidden={hidden} className="panel panel--pipeline muted">
        Starting the engine…
      </aside>
    )

  const scale = {
    messages: info?.messageCount ?? 0,
    tokens: run?.before.totals.tokens ?? 0,
    window: windowOf(config.window),
  }
  return (
    <aside id={id} hidden={hidden} className="panel panel--pipeline" aria-label="Pipeline">
      <div className="panel__head">
        <h2 className="panel__title">Pipeline</h2>
        <SettingsBar />
      </div>
      <ConfigNotice />
      <p className="panel__hint">Stages run top to bottom. Every change re-runs in the worker.</p>
      <PresetPicker />
      <ol className="stages">
        {config.stages.map((stage, i) => (
          <StageCard
            key={stage.id}
            stage={stage}
            position={i}
            count={config.stages.length}
            report={run?.stages.find((r) => r.stage === stage.id)}
            scale={scale}
          />
        ))}
      </ol>
      <div className="field">
        <label htmlFor="encoding">Encoding</label>
        <select id="encoding" value={config.encoding} onChange={(e) => setEncoding(e.target.value as Encoding)}>
          <option value="o200k_base">o200k_base (GPT-4o / 4.1 / 5)</option>
          <option value="cl100k_base">cl100k_base (GPT-4 / 3.5)</option>
        </select>
      </div>
      <WindowSetting />
      <TokenCountsSetting />
      <SummarizerSettings />
    </aside>
  )
}

interface StageCardProps {
  stage: StageConfig
  position: number
  count: number
  report: StageReport | undefined
  /** The transcript's messages and tokens and the model window (tokens): the sliders' ends. */
  scale: { messages: number; tokens: number; window: number }
}

function StageCard({ stage, position, count, report, scale }: StageCardProps) {
  const { toggleStage, moveStage, setStageParam } = usePipelineActions()
  const info = STAGE_INFO[stage.id]
  const params = stage.params as unknown as Record<string, unknown>
  return (
    <li className={stage.enabled ? 'stage' : 'stage stage--off'} data-stage={stage.id}>
      <div className="stage__head">
        <label className="switch">
          <input
            type="checkbox"
            role="switch"
            checked={stage.enabled}
            aria-label={`Enable ${info.title}`}
            onChange={() => toggleStage(stage.id)}
          />
          <span className="switch__track" aria-hidden="true" />
        </label>
        <span className="stage__title">
          <span className="stage__order">{position + 1}</span>
          {info.title}
        </span>
        <span className="stage__moves">
          <button
            type="button"
            className="icon-button"
            aria-label={`Move ${info.title} up`}
            disabled={position === 0}
            onClick={() => moveStage(stage.id, -1)}
          >
            ↑
          </button>
          <button
            type="button"
            className="icon-button"
            aria-label={`Move ${info.title} down`}
            disabled={position === count - 1}
            onClick={() => moveStage(stage.id, 1)}
          >
            ↓
          </button>
        </span>
      </div>
      <p className="stage__desc">{info.description}</p>
      {STAGE_CONTROLS[stage.id].map((control) => {
        const unused = unusedParam(stage.id, control.key, stage.params)
        const disabled = !stage.enabled
        if (control.kind === 'toggle') {
          return (
            <FlagControl
              key={control.key}
              def={control.def}
              stageTitle={info.title}
              value={params[control.key] === true}
              disabled={disabled}
              unused={unused}
              onChange={(v) => setStageParam(stage.id, control.key, v)}
            />
          )
        }
        if (control.kind === 'select') {
          const value = params[control.key]
          return (
            <ChoiceControl
              key={control.key}
              def={control.def}
              choices={control.choices}
              stageTitle={info.title}
              value={typeof value === 'string' ? value : undefined}
              disabled={disabled}
              unused={unused}
              onChange={(v) => setStageParam(stage.id, control.key, v)}
            />
          )
        }
        const { spec } = control
        const effective = effectiveParam(stage.id, spec.key, params)
        const typed = params[spec.key]
        const value = typeof typed === 'number' ? typed : spec.offWhenAbsent ? undefined : effective.value
        const slider = (
          <ParamControl
            key={spec.key}
            spec={spec}
            stageTitle={info.title}
            value={value}
            effective={effective}
            max={spec.max(scale)}
            window={scale.window}
            disabled={disabled}
            unused={unused}
            onChange={(v) => setStageParam(stage.id, spec.key, v)}
          />
        )
        if (stage.id !== 'summarize' || spec.key !== 'trigger_reserve') return slider
        return (
          <Fragment key={spec.key}>
            {slider}
            <TokenTriggerLine params={stage.params} window={scale.window} />
          </Fragment>
        )
      })}
      {stage.id === 'prune-tool-results' && <ExcludeToolsControl disabled={!stage.enabled} />}
      {info.fixed && <p className="stage__desc muted">{info.fixed}</p>}
      <StageReportLine enabled={stage.enabled} report={report} />
      <SummarizerStageError stage={stage.id} />
    </li>
  )
}

/**
 * Where summarize's token trigger fires, as the engine reads its params (`summarizeTrigger`):
 * "fires at 167,000 tokens · 83.5% of 200K (200,000 window − 33,000 reserve)"; nothing for the
 * message trigger (compact_after).
 */
function TokenTriggerLine({ params, window }: { params: object; window: number }) {
  const rule = summarizeTrigger(params, window)
  if (rule.measure !== 'tokens') return null
  return (
    <p className="param__share param__trigger" data-testid="summarize-trigger">
      fires at {formatCount(rule.threshold)} tokens · {windowShare(rule.threshold, window)} ({formatNumbersIn(rule.source)})
    </p>
  )
}

function StageReportLine({ enabled, report }: { enabled: boolean; report: StageReport | undefined }) {
  if (!enabled) return <p className="report report--off">off</p>
  if (!report) return null
  if (report.error) {
    return (
      <p className="report report--error" role="alert">
        Error: {report.error}
      </p>
    )
  }
  if (!report.changed) {
    return <p className="report report--idle">{report.note ? formatNumbersIn(report.note) : 'no change'}</p>
  }
  return (
    <p className="report report--saved">
      <strong>{formatTokenDelta(report.tokensBefore, report.tokensAfter)} tokens</strong>
      <span className="muted">
        {' '}
        · {formatCount(report.messagesBefore)} → {formatCountOf(report.messagesAfter, 'message')}
      </span>
      {report.note && <span className="muted"> · {formatNumbersIn(report.note)}</span>}
    </p>
  )
}

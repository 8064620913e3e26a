import { useId, useMemo, useState } from 'react'
import { HelpButton, HelpText, useHelp } from '../../components/Help'
import type { PipelineConfig } from '../../engine/model'
import { useConfig, usePipelineActions, useRun } from '../../state/hooks'

const EXCLUDE_HELP = 'Results of these tools are never pruned (Anthropic clear_tool_uses exclude_tools).'

/** Tool names as typed: split on commas, trimmed, empty ones and repeats dropped. */
function parseToolNames(text: string): string[] {
  return [...new Set(text.split(',').map((t) => t.trim()).filter(Boolean))]
}

/** `config` with prune-tool-results' `exclude_tools` = `tools` (the key removed when empty). */
function withExcluded(config: PipelineConfig, tools: string[]): PipelineConfig {
  return {
    ...config,
    stages: config.stages.map((s) => {
      if (s.id !== 'prune-tool-results') return s
      const params = { ...s.params }
      if (tools.length > 0) params.exclude_tools = tools
      else delete params.exclude_tools
      return { ...s, params }
    }),
  }
}

/**
 * prune-tool-results `exclude_tools`: the tools of this transcript as toggles, and a text field for
 * any other name (comma-separated). Each change is one undo step.
 */
export function ExcludeToolsControl({ disabled }: { disabled: boolean }) {
  const config = useConfig()
  const { run } = useRun()
  const { applyConfig } = usePipelineActions()
  const id = useId()
  const help = useHelp()
  const [draft, setDraft] = useState<string | null>(null)
  const rows = run?.before.rows
  const known = useMemo(() => {
    const names = new Set<string>()
    for (const r of rows ?? []) if (r.role === 'tool' && r.toolName) names.add(r.toolName)
    return [...names].sort()
  }, [rows])
  const prune = config?.stages.find((s) => s.id === 'prune-tool-results')
  if (!config || !prune || prune.id !== 'prune-tool-results') return null
  const excluded = prune.params.exclude_tools ?? []
  const commit = (tools: string[]) => {
    setDraft(null)
    if (tools.join('\u0000') !== excluded.join('\u0000')) applyConfig(withExcluded(config, tools))
  }
  return (
    <div className="param exclude-tools">
      <div className="param__row">
        <label htmlFor={id} className="param__label" title={EXCLUDE_HELP}>
          exclude_tools
        </label>
        <HelpButton help={help} label="About exclude_tools" />
      </div>
      <HelpText help={help} text={EXCLUDE_HELP} testId="param-help-exclude_tools" />
      <input
        id={id}
        className="exclude-tools__input"
        type="text"
        placeholder="tool names, comma-separated"
        value={draft ?? excluded.join(', ')}
        disabled={disabled}
        aria-label="prune-tool-results exclude_tools"
        onChange={(e) => setDraft(e.target.value)}
        onBlur={() => draft !== null && commit(parseToolNames(draft))}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && draft !== null) commit(parseToolNames(draft))
        }}
      />
      {known.length > 0 && (
        <div className="exclude-tools__known" role="group" aria-label="Tools in this transcript">
          {known.map((name) => {
            const on = excluded.includes(name)
            return (
              <button
                key={name}
                type="button"
                className="exclude-tools__tool"
                aria-pressed={on}
                disabled={disabled}
                title={on ? `Prune ${name} results again` : `Never prune ${name} results`}
                onClick={() => commit(on ? excluded.filter((t) => t !== name) : [...excluded, name])}
              >
                {name}
              </button>
            )
          })}
        </div>
      )}
    </div>
  )
}

import './summarizer.css'
import { SecretInput } from '../../components/SecretInput'
import type { SummarizerId } from '../../engine/model'
import { hostOf } from '../../engine/util/url-credentials'
import { endpointKey, isHttpSummarizer } from '../../state/slices/summarizer'
import { useConfig, useHasRecordedCompactions, useSummarizer, useSummarizerActions } from '../../state/hooks'
import { ENDPOINT_PRESETS } from './presets'


const SUMMARIZERS: { id: SummarizerId; label: string }[] = [
  // Short: the sidebar shows ~30 characters of the closed select; presets name the servers.
  { id: 'extractive', label: 'extractive (offline, not an LLM)' },
  { id: 'openai-compatible', label: 'OpenAI-compatible API' },
  { id: 'anthropic', label: 'Anthropic Messages API' },
  { id: 'recorded', label: 'recorded summary (from the file)' },
]

/**
 * The summarizer select and, for the LLM summarizers, endpoint preset, base URL, model, stream
 * and API key (memory only unless "remember on this device"), with the button that opens the send
 * step. `recorded` is offered only when the transcript records summaries.
 */
export function SummarizerSettings() {
  const { draft, apiKey, rememberKey, planStatus, planError } = useSummarizer()
  const { setDraft, setApiKey, setRememberKey, previewSend } = useSummarizerActions()
  const config = useConfig()
  const hasRecorded = useHasRecordedCompactions()
  const http = isHttpSummarizer(draft.summarizer)
  const complete = draft.baseUrl.trim() !== '' && draft.model.trim() !== ''
  const applied =
    config?.summarizer === draft.summarizer &&
    config.summarizerOptions !== undefined &&
    endpointKey({ summarizer: config.summarizer, ...config.summarizerOptions }) === endpointKey(draft) &&
    (config.summarizerOptions.stream ?? true) === draft.stream
  const presets = ENDPOINT_PRESETS.filter((p) => p.summarizer === draft.summarizer)

  return (
    <div className="summarizer-settings" data-testid="summarizer-settings">
      <div className="field">
        <label htmlFor="summarizer">Summarizer</label>
        <select
          id="summarizer"
          value={draft.summarizer}
          onChange={(e) => setDraft({ summarizer: e.target.value as SummarizerId })}
        >
          {SUMMARIZERS.filter((s) => s.id !== 'recorded' || hasRecorded || draft.summarizer === 'recorded').map(
            (s) => (
              <option key={s.id} value={s.id}>
                {s.label}
              </option>
            ),
          )}
        </select>
      </div>
      {http && (
        <>
          <div className="field">
            <label htmlFor="summarizer-preset">Endpoint preset</label>
            <select
              id="summarizer-preset"
              value={presets.find((p) => p.baseUrl === draft.baseUrl)?.baseUrl ?? ''}
              onChange={(e) => {
                const preset = presets.find((p) => p.baseUrl === e.target.value)
                if (!preset) return
                // Suggest the preset's model only where none is typed: never overwrite a choice.
                const model = draft.model.trim() === '' && preset.model ? { model: preset.model } : {}
                setDraft({ baseUrl: preset.baseUrl, ...model })
              }}
            >
              <option value="">custom (type the base URL)</option>
              {presets.map((p) => (
                <option key={p.label} value={p.baseUrl}>
                  {p.label} — {p.baseUrl}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="summarizer-base-url">Base URL</label>
            <input
              id="summarizer-base-url"
              type="url"
              value={draft.baseUrl}
              placeholder={draft.summarizer === 'anthropic' ? 'https://api.anthropic.com' : 'http://localhost:11434/v1'}
              onChange={(e) => setDraft({ baseUrl: e.target.value })}
            />
          </div>
          <div className="field">
            <label htmlFor="summarizer-model">Model</label>
            <input
              id="summarizer-model"
              value={draft.model}
              placeholder={draft.summarizer === 'anthropic' ? 'claude-haiku-4-5' : 'gpt-5-mini'}
              onChange={(e) => setDraft({ model: e.target.value })}
            />
          </div>
          <label className="checkbox">
            <input type="checkbox" checked={draft.stream} onChange={(e) => setDraft({ stream: e.target.checked })} />{' '}
            Stream the answer
          </label>
          <div className="field">
            <label htmlFor="summarizer-key">API key</label>
            <SecretInput
              id="summarizer-key"
              autoComplete="off"
              value={apiKey}
              placeholder="not needed for a local server"
              onValue={setApiKey}
            />
          </div>
          <label className="checkbox">
            <input type="checkbox" checked={rememberKey} onChange={(e) => setRememberKey(e.target.checked)} />{' '}
            Remember the key on this device
          </label>
          <p className="panel__hint">
            {rememberKey
              ? 'The key is stored in this browser (localStorage) until you untick this.'
              : 'The key stays in memory: it is gone when the page closes.'}{' '}
            It is sent only to the endpoint above, never put in a URL, an export or a log.
          </p>
          <p className="panel__hint" data-testid="summarizer-in-use">
            {applied
              ? `In use: every run asks ${draft.model.trim()} at ${hostOf(draft.baseUrl.trim())} (answers are cached).`
              : `Not in use yet: summaries come from the ${config?.summarizer ?? 'extractive'} summarizer until you ${
                  complete ? 'preview the requests and press Send' : 'fill in the base URL and model'
                }.`}
          </p>
          <button
            type="button"
            className="button"
            disabled={!complete || planStatus === 'loading'}
            onClick={() => void previewSend()}
          >
            {applied ? 'Show the requests…' : 'Preview and send…'}
          </button>
          {planStatus === 'error' && (
            <p className="report report--error" role="alert">
              Could not plan the requests: {planError}
            </p>
          )}
        </>
      )}
    </div>
  )
}

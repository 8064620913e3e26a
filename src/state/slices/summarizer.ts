import { getEngine } from '../../app/engine-client'
import type { PipelineConfig, StageId, SummarizerId } from '../../engine/model'
import type { SummaryPlan } from '../../engine/summarizers/preview'
import type { SliceCreator } from './types'

/** The localStorage key of an API key the person chose to remember on this device. */
export const API_KEY_STORAGE_KEY = 'compaction-inspector.summarizer-api-key (remembered by opt-in)'

/** The summarizer settings being edited; applied to the pipeline config only once allowed. */
export interface SummarizerDraft {
  summarizer: SummarizerId
  baseUrl: string
  model: string
  stream: boolean
}

/** True for the summarizers that send requests to an endpoint. */
export function isHttpSummarizer(id: SummarizerId): boolean {
  return id === 'openai-compatible' || id === 'anthropic'
}

/** Identifies an endpoint the person allowed to receive requests (protocol, base URL, model). */
export function endpointKey(draft: Pick<SummarizerDraft, 'summarizer' | 'baseUrl' | 'model'>): string {
  return `${draft.summarizer} ${draft.baseUrl.trim()} ${draft.model.trim()}`
}

/** `config` with the draft's summarizer and (for HTTP ones) its settings; never a key. */
export function applyDraft(config: PipelineConfig, draft: SummarizerDraft): PipelineConfig {
  if (!isHttpSummarizer(draft.summarizer)) {
    const { summarizerOptions: _unused, ...rest } = config
    return { ...rest, summarizer: draft.summarizer }
  }
  return {
    ...config,
    summarizer: draft.summarizer,
    summarizerOptions: { baseUrl: draft.baseUrl.trim(), model: draft.model.trim(), stream: draft.stream },
  }
}

function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage
  } catch {
    return null // storage disabled (privacy mode): the key stays in memory
  }
}

/**
 * LLM summarizer settings and the "send" step (issue 4 points 1–2). The key is held in memory
 * only, unless `rememberKey` (explicit opt-in) stores it in localStorage under
 * `API_KEY_STORAGE_KEY`; it never enters the pipeline config, the URL or an export. An HTTP
 * summarizer reaches the config only after the person saw the plan of an endpoint and pressed
 * Send (or had already allowed that endpoint), so nothing is sent unseen.
 */
export interface SummarizerSlice {
  draft: SummarizerDraft
  apiKey: string
  rememberKey: boolean
  /** Endpoints (`endpointKey`) the person allowed after seeing a plan. */
  allowedEndpoints: string[]
  /** The plan shown in the send dialog, while it is open. */
  plan: SummaryPlan | null
  planStatus: 'idle' | 'loading' | 'error'
  planError: string | null
  /** The summarizing stage whose LLM call made the last run fail (set by the run slice). */
  runErrorStage: StageId | null
  /** A note after the person cancelled summaries in flight. */
  summarizerNotice: string | null
  /** Edits the draft; choosing an offline summarizer (or an allowed endpoint) applies it at once. */
  setDraft: (patch: Partial<SummarizerDraft>) => void
  setApiKey: (key: string) => void
  setRememberKey: (remember: boolean) => void
  /** Plans the draft's requests in the worker and opens the send dialog. */
  previewSend: () => Promise<void>
  /** Send: allows the endpoint, applies the draft and runs. */
  confirmSend: () => void
  /** Closes the send dialog without sending. */
  closePlan: () => void
  /** Aborts the summaries in flight; the previous result stays on screen. */
  cancelSummaries: () => Promise<void>
}

export const createSummarizerSlice: SliceCreator<SummarizerSlice> = (set, get) => {
  const stored = storage()?.getItem(API_KEY_STORAGE_KEY) ?? null
  let planRequest = 0

  const apply = () => {
    const config = get().config
    if (!config) return
    set({ config: applyDraft(config, get().draft), summarizerNotice: null })
    if (get().info) get().requestRun()
  }

  return {
    draft: { summarizer: 'extractive', baseUrl: '', model: '', stream: true },
    apiKey: stored ?? '',
    rememberKey: stored !== null,
    allowedEndpoints: [],
    plan: null,
    planStatus: 'idle',
    planError: null,
    runErrorStage: null,
    summarizerNotice: null,
    setDraft: (patch) => {
      const draft = { ...get().draft, ...patch }
      set({ draft })
      if (!isHttpSummarizer(draft.summarizer)) apply()
      else if (get().allowedEndpoints.includes(endpointKey(draft))) {
        const config = get().config
        const next = config && applyDraft(config, draft)
        if (next && JSON.stringify(next) !== JSON.stringify(config)) apply()
      }
    },
    setApiKey: (apiKey) => {
      set({ apiKey })
      if (get().rememberKey) storage()?.setItem(API_KEY_STORAGE_KEY, apiKey)
    },
    setRememberKey: (rememberKey) => {
      set({ rememberKey })
      if (rememberKey) storage()?.setItem(API_KEY_STORAGE_KEY, get().apiKey)
      else storage()?.removeItem(API_KEY_STORAGE_KEY)
    },
    previewSend: async () => {
      const config = get().config
      if (!config) return
      const id = ++planRequest
      set({ planStatus: 'loading', planError: null, plan: null })
      try {
        const outcome = await getEngine().planSummaries(applyDraft(config, get().draft), get().apiKey !== '')
        if (id !== planRequest) return
        if (outcome.ok) set({ plan: outcome.plan, planStatus: 'idle' })
        else set({ planStatus: 'error', planError: outcome.error })
      } catch (e) {
        if (id === planRequest) set({ planStatus: 'error', planError: e instanceof Error ? e.message : String(e) })
      }
    },
    confirmSend: () => {
      const key = endpointKey(get().draft)
      set((s) => ({
        plan: null,
        allowedEndpoints: s.allowedEndpoints.includes(key) ? s.allowedEndpoints : [...s.allowedEndpoints, key],
      }))
      apply()
    },
    closePlan: () => {
      planRequest++
      set({ plan: null, planStatus: 'idle', planError: null })
    },
    cancelSummaries: async () => {
      const cancelled = await getEngine().cancelSummaries()
      if (cancelled) set({ summarizerNotice: 'Summaries cancelled: the page shows the previous result.' })
    },
  }
}

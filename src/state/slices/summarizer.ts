import { getEngine } from '../../app/engine-client'
import type { PipelineConfig, SummarizerId } from '../../engine/model'
import type { SummaryPlan } from '../../engine/summarizers/preview'
import { parseJsonWithin } from '../../engine/util/nesting'
import { latestRequest } from '../latest'
import type { SliceCreator } from './types'
import { localStore } from '../local-storage'

/** The localStorage key of an API key the person chose to remember on this device. */
export const API_KEY_STORAGE_KEY = 'compaction-inspector.summarizer-api-key (remembered by opt-in)'

/**
 * The localStorage key of the non-secret summarizer settings (`StoredSummarizerSettings`): kept
 * across reloads so a person does not type the endpoint again. Never holds the key.
 */
export const SETTINGS_STORAGE_KEY = 'compaction-inspector.summarizer-settings'

/** The summarizer settings being edited; applied to the pipeline config only once allowed. */
export interface SummarizerDraft {
  summarizer: SummarizerId
  baseUrl: string
  model: string
  stream: boolean
}

/** An HTTP summarizer's protocol. */
type HttpSummarizerId = Extract<SummarizerId, 'openai-compatible' | 'anthropic'>

/** The endpoint last used with one protocol (base URL and model, as typed). */
interface RememberedEndpoint {
  baseUrl: string
  model: string
}

/**
 * What survives a reload: the summarizer chosen, the stream switch and, per
 * protocol, the endpoint last typed. Deliberately no key (see `API_KEY_STORAGE_KEY`) and nothing
 * from the transcript.
 */
export interface StoredSummarizerSettings {
  version: 1
  summarizer: SummarizerId
  stream: boolean
  endpoints: Partial<Record<HttpSummarizerId, RememberedEndpoint>>
}

const DEFAULT_DRAFT: SummarizerDraft = { summarizer: 'extractive', baseUrl: '', model: '', stream: true }

/** The endpoint a protocol starts with before anything was typed: Anthropic has one URL. */
const FIRST_ENDPOINT: Record<HttpSummarizerId, RememberedEndpoint> = {
  'openai-compatible': { baseUrl: '', model: '' },
  anthropic: { baseUrl: 'https://api.anthropic.com', model: '' },
}

const SUMMARIZER_IDS: readonly SummarizerId[] = ['extractive', 'openai-compatible', 'anthropic', 'recorded']

function endpointOf(value: unknown): RememberedEndpoint | undefined {
  if (!value || typeof value !== 'object') return undefined
  const { baseUrl, model } = value as Record<string, unknown>
  return typeof baseUrl === 'string' && typeof model === 'string' ? { baseUrl, model } : undefined
}

/**
 * Parses stored settings (`SETTINGS_STORAGE_KEY`); null for anything missing, malformed, nested
 * deeper than `MAX_NESTING` (`parseJsonWithin`) or of another version (the defaults then apply).
 * Unknown fields are ignored.
 */
export function parseStoredSettings(text: string | null): StoredSummarizerSettings | null {
  if (text === null) return null
  // Storage text is input like a file: nesting past MAX_NESTING is refused before it is parsed.
  const value = parseJsonWithin(text)?.value
  if (!value || typeof value !== 'object') return null
  const v = value as Record<string, unknown>
  if (v.version !== 1 || !SUMMARIZER_IDS.includes(v.summarizer as SummarizerId)) return null
  const endpoints: StoredSummarizerSettings['endpoints'] = {}
  const stored = v.endpoints && typeof v.endpoints === 'object' ? (v.endpoints as Record<string, unknown>) : {}
  for (const id of ['openai-compatible', 'anthropic'] as const) {
    const e = endpointOf(stored[id])
    if (e) endpoints[id] = e
  }
  return { version: 1, summarizer: v.summarizer as SummarizerId, stream: v.stream !== false, endpoints }
}

/**
 * The draft a page load starts with: the stored summarizer with its protocol's endpoint. A stored
 * `recorded` starts as `extractive` (whether the new transcript records summaries is not known
 * yet). An HTTP summarizer is only the draft: nothing is sent before the send step.
 */
export function draftFromStored(stored: StoredSummarizerSettings | null): SummarizerDraft {
  if (!stored) return { ...DEFAULT_DRAFT }
  const summarizer = stored.summarizer === 'recorded' ? 'extractive' : stored.summarizer
  const endpoint = isHttpSummarizer(summarizer)
    ? (stored.endpoints[summarizer as HttpSummarizerId] ?? FIRST_ENDPOINT[summarizer as HttpSummarizerId])
    : { baseUrl: '', model: '' }
  return { summarizer, stream: stored.stream, ...endpoint }
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

/**
 * LLM summarizer settings and the "send" step. The key is held in memory
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
  /** A note after the person cancelled summaries in flight. */
  summarizerNotice: string | null
  /** The endpoint last typed per protocol (persisted with the draft; see `StoredSummarizerSettings`). */
  endpoints: StoredSummarizerSettings['endpoints']
  /**
   * Edits the draft and stores it (without the key); choosing an offline summarizer (or an
   * allowed endpoint) applies it at once. Switching protocol brings back that protocol's endpoint.
   */
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
  /** Hides the summarizer notice. */
  dismissSummarizerNotice: () => void
}

function readStorage(key: string): string | null {
  try {
    return localStore()?.getItem(key) ?? null
  } catch {
    return null
  }
}

function writeStorage(key: string, value: string | null): void {
  try {
    if (value === null) localStore()?.removeItem(key)
    else localStore()?.setItem(key, value)
  } catch {
    // quota or privacy mode: the settings simply do not survive a reload
  }
}

/** Shown after a cancel; true only until a newer result is shown. */
const CANCEL_NOTICE = 'Summaries cancelled: the page shows the previous result.'

/** Shown when another transcript opened while an LLM summarizer was in use (a new send step is needed). */
const NEW_TRANSCRIPT_NOTICE =
  'Another transcript opened: summaries are offline until you press Send again — nothing is sent unseen.'

export const createSummarizerSlice: SliceCreator<SummarizerSlice> = (set, get, api, events) => {
  // "The page shows the previous result" is only true until a newer result is shown: a slider
  // moved after a cancel runs again, and a notice left behind would then be false.
  api.subscribe((state, previous) => {
    if (state.summarizerNotice === CANCEL_NOTICE && state.run !== previous.run && state.run) set({ summarizerNotice: null })
  })
  const stored = readStorage(API_KEY_STORAGE_KEY)
  const settings = parseStoredSettings(readStorage(SETTINGS_STORAGE_KEY))
  const plans = latestRequest()

  const persist = () => {
    const { draft, endpoints } = get()
    const value: StoredSummarizerSettings = { version: 1, summarizer: draft.summarizer, stream: draft.stream, endpoints }
    writeStorage(SETTINGS_STORAGE_KEY, JSON.stringify(value))
  }

  // Another transcript (or conversation) opened: its text was never shown in a send step, so an
  // HTTP summarizer in use falls back to the offline one and every endpoint must be sent to again.
  // A re-import after a hard cancel brings back the same text: nothing new to allow.
  events.on('transcriptChanged', ({ reimport }) => {
    if (reimport) return
    const config = get().config
    const inUse = config !== null && isHttpSummarizer(config.summarizer)
    if (!inUse && get().allowedEndpoints.length === 0) return
    set({
      allowedEndpoints: [],
      ...(inUse
        ? {
            config: applyDraft(config, { ...get().draft, summarizer: 'extractive' }),
            summarizerNotice: NEW_TRANSCRIPT_NOTICE,
          }
        : {}),
    })
  })

  const apply = () => {
    const config = get().config
    if (!config) return
    set({ config: applyDraft(config, get().draft), summarizerNotice: null })
    if (get().info) get().requestRun()
  }

  return {
    draft: draftFromStored(settings),
    endpoints: settings?.endpoints ?? {},
    apiKey: stored ?? '',
    rememberKey: stored !== null,
    allowedEndpoints: [],
    plan: null,
    planStatus: 'idle',
    planError: null,
    summarizerNotice: null,
    setDraft: (patch) => {
      const previous = get().draft
      let draft = { ...previous, ...patch }
      const endpoints = { ...get().endpoints }
      if (isHttpSummarizer(previous.summarizer)) {
        endpoints[previous.summarizer as HttpSummarizerId] = { baseUrl: previous.baseUrl, model: previous.model }
      }
      if (patch.summarizer !== undefined && patch.summarizer !== previous.summarizer && isHttpSummarizer(draft.summarizer)) {
        // An OpenAI base URL is wrong for Anthropic and back: each protocol keeps its own endpoint.
        const id = draft.summarizer as HttpSummarizerId
        const endpoint = endpoints[id] ?? FIRST_ENDPOINT[id]
        draft = { ...draft, baseUrl: patch.baseUrl ?? endpoint.baseUrl, model: patch.model ?? endpoint.model }
      }
      if (isHttpSummarizer(draft.summarizer)) {
        endpoints[draft.summarizer as HttpSummarizerId] = { baseUrl: draft.baseUrl, model: draft.model }
      }
      set({ draft, endpoints })
      persist()
      if (!isHttpSummarizer(draft.summarizer)) apply()
      else if (get().allowedEndpoints.includes(endpointKey(draft))) {
        const config = get().config
        const next = config && applyDraft(config, draft)
        if (next && JSON.stringify(next) !== JSON.stringify(config)) apply()
      } else {
        // The draft left the endpoint last sent to. Runs read the key as typed now, which belongs to
        // the draft's endpoint: left on the old one, the next slider move would send a key typed for
        // host B to host A. Back to the offline summarizer until Send allows the new endpoint.
        const config = get().config
        if (config && isHttpSummarizer(config.summarizer)) {
          set({ config: applyDraft(config, { ...draft, summarizer: 'extractive' }), summarizerNotice: null })
          if (get().info) get().requestRun()
        }
      }
    },
    setApiKey: (apiKey) => {
      set({ apiKey })
      if (get().rememberKey) writeStorage(API_KEY_STORAGE_KEY, apiKey)
    },
    setRememberKey: (rememberKey) => {
      set({ rememberKey })
      writeStorage(API_KEY_STORAGE_KEY, rememberKey ? get().apiKey : null)
    },
    previewSend: async () => {
      const config = get().config
      if (!config) return
      const ticket = plans.next()
      set({ planStatus: 'loading', planError: null, plan: null })
      try {
        const outcome = await getEngine().planSummaries(applyDraft(config, get().draft), get().apiKey !== '')
        if (!ticket.isLatest()) return
        if (outcome.ok) set({ plan: outcome.plan, planStatus: 'idle' })
        else set({ planStatus: 'error', planError: outcome.error })
      } catch (e) {
        if (ticket.isLatest()) set({ planStatus: 'error', planError: e instanceof Error ? e.message : String(e) })
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
      plans.drop()
      set({ plan: null, planStatus: 'idle', planError: null })
    },
    dismissSummarizerNotice: () => set({ summarizerNotice: null }),
    cancelSummaries: async () => {
      const cancelled = await getEngine().cancelSummaries()
      if (cancelled) set({ summarizerNotice: CANCEL_NOTICE })
    },
  }
}

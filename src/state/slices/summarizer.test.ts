import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { create } from 'zustand'
import { DEFAULT_PIPELINE } from '../../engine/pipeline'
import { MAX_NESTING } from '../../engine/util/nesting'
import type { TranscriptInfo } from '../../worker/protocol'
import { createStoreEvents, type StoreEvents } from '../events'
import {
  API_KEY_STORAGE_KEY,
  applyDraft,
  createSummarizerSlice,
  draftFromStored,
  endpointKey,
  isHttpSummarizer,
  parseStoredSettings,
  SETTINGS_STORAGE_KEY,
} from './summarizer'
import type { StoreState } from './types'

describe('summarizer settings', () => {
  const draft = { summarizer: 'anthropic' as const, baseUrl: ' https://api.anthropic.com ', model: 'claude-haiku-4-5', stream: false }

  it('applies an HTTP draft as trimmed settings without any key', () => {
    const config = applyDraft(DEFAULT_PIPELINE, draft)
    expect(config.summarizer).toBe('anthropic')
    expect(config.summarizerOptions).toEqual({ baseUrl: 'https://api.anthropic.com', model: 'claude-haiku-4-5', stream: false })
    expect(JSON.stringify(config)).not.toMatch(/key/i)
    expect(config.stages).toBe(DEFAULT_PIPELINE.stages)
  })

  it('an offline summarizer drops the endpoint settings', () => {
    const config = applyDraft(applyDraft(DEFAULT_PIPELINE, draft), { ...draft, summarizer: 'extractive' })
    expect(config.summarizer).toBe('extractive')
    expect(config).not.toHaveProperty('summarizerOptions')
  })

  it('endpoints differ by protocol, URL and model', () => {
    expect(endpointKey(draft)).toBe(endpointKey({ ...draft, baseUrl: 'https://api.anthropic.com' }))
    expect(endpointKey(draft)).not.toBe(endpointKey({ ...draft, model: 'other' }))
    expect(endpointKey(draft)).not.toBe(endpointKey({ ...draft, summarizer: 'openai-compatible' }))
    expect(isHttpSummarizer('recorded')).toBe(false)
    expect(isHttpSummarizer('openai-compatible')).toBe(true)
  })
})

/** A localStorage stand-in: the Storage methods the slice uses, over a Map. */
function fakeStorage(): Storage & { entries: Map<string, string> } {
  const entries = new Map<string, string>()
  return {
    entries,
    get length() {
      return entries.size
    },
    clear: () => entries.clear(),
    getItem: (k: string) => entries.get(k) ?? null,
    key: (i: number) => [...entries.keys()][i] ?? null,
    removeItem: (k: string) => void entries.delete(k),
    setItem: (k: string, v: string) => void entries.set(k, String(v)),
  }
}

/** A store holding only the summarizer slice (as after a page load: it reads storage once). */
function load() {
  return create<StoreState>()((...a) => ({ ...createSummarizerSlice(...a, createStoreEvents()) }) as StoreState)
}

describe('summarizer settings survive a reload (localStorage), the key only by opt-in', () => {
  let storage: ReturnType<typeof fakeStorage>
  beforeEach(() => {
    storage = fakeStorage()
    vi.stubGlobal('localStorage', storage)
  })
  afterEach(() => {
    vi.unstubAllGlobals()
  })

  it('kind, base URL, model and stream are restored; the key is not stored without the opt-in', () => {
    const page = load()
    expect(page.getState().draft).toEqual({ summarizer: 'extractive', baseUrl: '', model: '', stream: true })
    page.getState().setDraft({ summarizer: 'openai-compatible' })
    page.getState().setDraft({ baseUrl: 'http://localhost:11434/v1' })
    page.getState().setDraft({ model: 'llama3.2', stream: false })
    page.getState().setApiKey('sk-secret-123')

    const reloaded = load()
    expect(reloaded.getState().draft).toEqual({
      summarizer: 'openai-compatible',
      baseUrl: 'http://localhost:11434/v1',
      model: 'llama3.2',
      stream: false,
    })
    expect(reloaded.getState().apiKey).toBe('')
    expect(reloaded.getState().rememberKey).toBe(false)
    // Nowhere in storage: not under its own key, not inside the settings.
    expect(storage.entries.has(API_KEY_STORAGE_KEY)).toBe(false)
    for (const value of storage.entries.values()) expect(value).not.toContain('sk-secret-123')
    expect(JSON.parse(storage.entries.get(SETTINGS_STORAGE_KEY) ?? 'null')).toEqual({
      version: 1,
      summarizer: 'openai-compatible',
      stream: false,
      endpoints: { 'openai-compatible': { baseUrl: 'http://localhost:11434/v1', model: 'llama3.2' } },
    })
  })

  it('with "Remember the key" ticked the key survives too, and unticking removes it', () => {
    const page = load()
    page.getState().setApiKey('sk-secret-123')
    page.getState().setRememberKey(true)
    expect(load().getState().apiKey).toBe('sk-secret-123')
    expect(load().getState().rememberKey).toBe(true)
    page.getState().setRememberKey(false)
    expect(storage.entries.has(API_KEY_STORAGE_KEY)).toBe(false)
    expect(load().getState().apiKey).toBe('')
    // The settings never carry it, opt-in or not.
    expect(storage.entries.get(SETTINGS_STORAGE_KEY) ?? '').not.toContain('sk-secret')
  })

  it('each protocol keeps its own endpoint; switching brings it back (Anthropic starts at its URL)', () => {
    const page = load()
    page.getState().setDraft({ summarizer: 'openai-compatible', baseUrl: 'http://localhost:1234/v1', model: 'qwen' })
    page.getState().setDraft({ summarizer: 'anthropic' })
    expect(page.getState().draft).toMatchObject({ baseUrl: 'https://api.anthropic.com', model: '' })
    page.getState().setDraft({ model: 'claude-haiku-4-5' })
    page.getState().setDraft({ summarizer: 'extractive' })
    page.getState().setDraft({ summarizer: 'openai-compatible' })
    expect(page.getState().draft).toMatchObject({ baseUrl: 'http://localhost:1234/v1', model: 'qwen' })
    const reloaded = load()
    reloaded.getState().setDraft({ summarizer: 'anthropic' })
    expect(reloaded.getState().draft).toMatchObject({ baseUrl: 'https://api.anthropic.com', model: 'claude-haiku-4-5' })
  })

  it('a stored recorded summarizer starts as extractive; malformed or foreign data is ignored', () => {
    expect(draftFromStored(parseStoredSettings('{"version":1,"summarizer":"recorded","stream":true,"endpoints":{}}'))).toEqual({
      summarizer: 'extractive',
      baseUrl: '',
      model: '',
      stream: true,
    })
    expect(parseStoredSettings('not json')).toBeNull()
    expect(parseStoredSettings('{"version":2,"summarizer":"anthropic"}')).toBeNull()
    expect(parseStoredSettings('{"version":1,"summarizer":"gpt"}')).toBeNull()
    const stored = parseStoredSettings(
      '{"version":1,"summarizer":"anthropic","endpoints":{"anthropic":{"baseUrl":"https://a.example","model":7}}}',
    )
    // A model that is not a string drops that endpoint; Anthropic then starts at its own URL.
    expect(draftFromStored(stored)).toEqual({ summarizer: 'anthropic', baseUrl: 'https://api.anthropic.com', model: '', stream: true })
    storage.setItem(SETTINGS_STORAGE_KEY, '{broken')
    expect(load().getState().draft.summarizer).toBe('extractive')
  })

  it('stored settings nested past the nesting limit are ignored like malformed ones, never parsed into a value', () => {
    const deep = (levels: number) =>
      `{"version":1,"summarizer":"anthropic","stream":false,"endpoints":{},"extra":${'['.repeat(levels)}${']'.repeat(levels)}}`
    expect(parseStoredSettings(deep(MAX_NESTING - 1))).not.toBeNull()
    expect(parseStoredSettings(deep(MAX_NESTING))).toBeNull()
    expect(parseStoredSettings(deep(200_000))).toBeNull()
  })
})

describe('an endpoint left after Send stops receiving requests (and the key typed for the next one)', () => {
  /** The summarizer slice plus the two run-slice fields it drives: a config and a run counter. */
  function page() {
    let runs = 0
    const events: StoreEvents = createStoreEvents()
    const store = create<StoreState>()(
      (...a) =>
        ({ ...createSummarizerSlice(...a, events), config: DEFAULT_PIPELINE, info: {}, requestRun: () => void runs++ }) as unknown as StoreState,
    )
    /** Another transcript opens, as the load slice announces it. */
    const open = (reimport = false) => events.emit('transcriptChanged', { info: {} as TranscriptInfo, reimport })
    return { store, runs: () => runs, open }
  }

  it('editing the base URL, the model or the protocol after Send falls back to the offline summarizer', () => {
    for (const patch of [{ baseUrl: 'http://other.example/v1' }, { model: 'other-model' }, { summarizer: 'anthropic' as const }]) {
      const { store, runs } = page()
      store.getState().setDraft({ summarizer: 'openai-compatible', baseUrl: 'http://127.0.0.1:1/v1', model: 'm' })
      store.getState().setApiKey('key-for-a')
      store.getState().confirmSend()
      expect(store.getState().config?.summarizer).toBe('openai-compatible')
      const before = runs()
      store.getState().setDraft(patch)
      // A key typed now is for the new endpoint: no run may still ask the old one with it.
      store.getState().setApiKey('key-for-b')
      expect(store.getState().config?.summarizer).toBe('extractive')
      expect(store.getState().config).not.toHaveProperty('summarizerOptions')
      expect(runs()).toBe(before + 1)
      // Back at the endpoint allowed before: it applies again without a new send step.
      store.getState().setDraft({ summarizer: 'openai-compatible', baseUrl: 'http://127.0.0.1:1/v1', model: 'm' })
      expect(store.getState().config?.summarizerOptions).toEqual({ baseUrl: 'http://127.0.0.1:1/v1', model: 'm', stream: true })
    }
  })

  it('another transcript needs a new send step: its text was never shown in one', () => {
    const { store, open } = page()
    store.getState().setDraft({ summarizer: 'openai-compatible', baseUrl: 'http://127.0.0.1:1/v1', model: 'm' })
    store.getState().confirmSend()
    expect(store.getState().config?.summarizer).toBe('openai-compatible')
    // The same transcript back in a fresh worker after a hard cancel was already shown: it stays.
    open(true)
    expect(store.getState().config?.summarizer).toBe('openai-compatible')
    open()
    expect(store.getState().config?.summarizer).toBe('extractive')
    expect(store.getState().config).not.toHaveProperty('summarizerOptions')
    expect(store.getState().allowedEndpoints).toEqual([])
    expect(store.getState().summarizerNotice).toMatch(/press Send again/)
    // The new transcript's first (offline) result does not take the notice away.
    store.setState({ run: { runId: 1 } } as unknown as Partial<StoreState>)
    expect(store.getState().summarizerNotice).toMatch(/press Send again/)
    // The draft is kept, but no longer applies on its own: the same endpoint waits for Send.
    store.getState().setDraft({ stream: false })
    expect(store.getState().config?.summarizer).toBe('extractive')
    store.getState().confirmSend()
    expect(store.getState().config?.summarizerOptions).toEqual({ baseUrl: 'http://127.0.0.1:1/v1', model: 'm', stream: false })
  })

  it('with the offline summarizer a new transcript changes nothing', () => {
    const { store, open } = page()
    open()
    expect(store.getState().config).toBe(DEFAULT_PIPELINE)
    expect(store.getState().summarizerNotice).toBeNull()
  })

  it('the stream switch alone keeps the endpoint in use', () => {
    const { store } = page()
    store.getState().setDraft({ summarizer: 'openai-compatible', baseUrl: 'http://127.0.0.1:1/v1', model: 'm' })
    store.getState().confirmSend()
    store.getState().setDraft({ stream: false })
    expect(store.getState().config?.summarizerOptions).toEqual({ baseUrl: 'http://127.0.0.1:1/v1', model: 'm', stream: false })
  })
})

describe('the cancel notice', () => {
  it('stays while the previous result is shown and goes once a newer result is', async () => {
    const store = create<StoreState>()((...a) => ({ ...createSummarizerSlice(...a, createStoreEvents()), run: null }) as unknown as StoreState)
    const shown = { runId: 1 }
    store.setState({ run: shown } as unknown as Partial<StoreState>)
    store.setState({ summarizerNotice: 'Summaries cancelled: the page shows the previous result.' })
    // Unrelated changes (a slider's config, progress) keep it: the shown result is still the old one.
    store.setState({ summaryProgress: null, run: shown } as unknown as Partial<StoreState>)
    expect(store.getState().summarizerNotice).not.toBeNull()
    store.setState({ run: { runId: 2 } } as unknown as Partial<StoreState>)
    expect(store.getState().summarizerNotice).toBeNull()
  })
})

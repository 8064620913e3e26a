/**
 * Keeps the pipeline config in the URL hash (`#cfg=…`, url-config.ts) and back, and beside it
 * the facts the user watches (`&watch=…`), the fingerprint of the transcript shown (`&t=…`), the
 * open tab (`&tab=facts`) and the selected message (`&m=41`, its position in the Before):
 * a link opened restores its settings before the first run, its tab at once and its message once
 * a run shows it; every change rewrites the hash with `history.replaceState` (no history
 * entries), debounced; a link pasted into the same tab (`hashchange`) applies as one undo step.
 * A link made on another transcript (its `t=` differs from the one shown) raises the share
 * notice until that transcript is opened or the notice is dismissed. Never the API key, never
 * the transcript or its name.
 */
import { useSyncExternalStore } from 'react'
import { FINGERPRINT_PATTERN } from '../../engine/formats/fingerprint'
import type { PipelineConfig } from '../../engine/model'
import { hostOf } from '../../engine/util/url-credentials'
import { isHttpSummarizer } from '../../state/slices/summarizer'
import type { MainTab } from '../../state/slices/view'
import { useStore, type StoreState } from '../../state/store'
import type { TranscriptInfo } from '../../worker/protocol'
import {
  configTextFromHash,
  decodeConfig,
  encodeConfig,
  hashEntry,
  hashWithConfig,
  hashWithEntry,
  hashWithWatched,
  noticeLine,
  watchedFromHash,
} from './url-config'

/** How long the hash waits after the last change before it is rewritten (ms). */
const HASH_WRITE_DELAY_MS = 300

let restored = false
let pending: ReturnType<typeof setTimeout> | undefined

/**
 * The link's config made safe to apply: an HTTP summarizer (an endpoint that would receive the
 * transcript) is never applied from a link; it goes to the summarizer settings form, where the
 * send step shows what would be sent before anything is. Returns the config and extra notices.
 */
function withoutUnseenEndpoint(linked: PipelineConfig, current: PipelineConfig): [PipelineConfig, string[]] {
  if (!isHttpSummarizer(linked.summarizer)) return [linked, []]
  const same =
    linked.summarizer === current.summarizer &&
    JSON.stringify(linked.summarizerOptions) === JSON.stringify(current.summarizerOptions)
  if (same) return [linked, []]
  const safe: PipelineConfig = { ...linked, summarizer: current.summarizer }
  delete safe.summarizerOptions
  if (current.summarizerOptions) safe.summarizerOptions = current.summarizerOptions
  const options = linked.summarizerOptions
  useStore.getState().setDraft({
    summarizer: linked.summarizer,
    ...(options ? { baseUrl: options.baseUrl, model: options.model, stream: options.stream ?? true } : {}),
  })
  const where = options ? ` at ${hostOf(options.baseUrl)}` : ''
  return [safe, [`the ${linked.summarizer} summarizer${where} waits under Summarizer until you review it and press Send`]]
}

/** The hash keys of the transcript's fingerprint, the open tab and the selected message. */
const FINGERPRINT_KEY = 't'
const TAB_KEY = 'tab'
const MESSAGE_KEY = 'm'

/** The tab a link opens with no `tab=` entry (and which is then left out of the hash). */
const DEFAULT_TAB: MainTab = 'compare'

/** Every tab id a link may name (the `MainTab` ids). */
const TAB_IDS: Record<MainTab, true> = {
  compare: true,
  table: true,
  facts: true,
  timeline: true,
  turn: true,
  stages: true,
  sweep: true,
}

/** Every tab id, in no particular order (what a `tab=` or a session file's `tab` may name). */
export const TAB_ID_LIST: readonly MainTab[] = Object.keys(TAB_IDS) as MainTab[]

/** Whether `id` names a main view (a `tab=` value). */
function isTabId(id: string): id is MainTab {
  return Object.hasOwn(TAB_IDS, id)
}

/** The `m=` value as a Before position, or null when absent or not a whole number ≥ 0. */
function messageFromHash(hash: string): number | null {
  const raw = hashEntry(hash, MESSAGE_KEY)
  return raw !== null && /^\d{1,9}$/.test(raw) ? Number(raw) : null
}

/** The `t=` value when it is a fingerprint (12 hex digits), else null. */
function fingerprintFromHash(hash: string): string | null {
  const raw = hashEntry(hash, FINGERPRINT_KEY)?.toLowerCase() ?? null
  return raw !== null && FINGERPRINT_PATTERN.test(raw) ? raw : null
}

/**
 * What the share notice says: the link's settings were made on another transcript than the one
 * shown (`shown`, its file name). Null when there is nothing to say.
 */
export interface ShareNotice {
  shown: string
}

/** The fingerprint the link was made on, while the transcript shown has not been found to match. */
let linked: string | null = null
/** The fingerprint of the transcript shown, once known, and the import it belongs to. */
let shown: { of: TranscriptInfo; fingerprint: string } | null = null
/** The notice raised, or null. */
let notice: ShareNotice | null = null
const noticeListeners = new Set<() => void>()
/** The Before position of the link's `m=`, until a run shows that message. */
let pendingMessage: number | null = null

function setNotice(next: ShareNotice | null): void {
  if (next?.shown === notice?.shown) return
  notice = next
  for (const listener of noticeListeners) listener()
}

/** The share notice now (for `useSyncExternalStore`). */
function currentNotice(): ShareNotice | null {
  return notice
}

function subscribeNotice(listener: () => void): () => void {
  noticeListeners.add(listener)
  return () => noticeListeners.delete(listener)
}

/** The share notice to show (re-renders when it is raised, cleared or dismissed). */
export function useShareNotice(): ShareNotice | null {
  return useSyncExternalStore(subscribeNotice, currentNotice, currentNotice)
}

/** Dismisses the share notice; it stays away until another link made elsewhere is opened. */
export function dismissShareNotice(): void {
  linked = null
  setNotice(null)
  scheduleWrite()
}

/** The fingerprint of the transcript shown, asked of the worker once per import; null when none is open. */
async function shownFingerprint(): Promise<string | null> {
  const info = useStore.getState().info
  if (!info) return null
  if (shown?.of === info) return shown.fingerprint
  const fingerprint = await useStore.getState().fingerprint()
  if (fingerprint === null || useStore.getState().info !== info) return null
  shown = { of: info, fingerprint }
  return fingerprint
}

/** Compares the link's fingerprint with the transcript shown: raises or clears the notice. */
async function checkLinked(): Promise<void> {
  if (linked === null) return
  const info = useStore.getState().info
  const fingerprint = await shownFingerprint()
  if (fingerprint === null || !info || linked === null) return
  if (fingerprint === linked) {
    linked = null
    setNotice(null)
  } else setNotice({ shown: info.fileName })
  scheduleWrite()
}

/**
 * The Before position of the selected message (`m=`, a session file's `message`): a Before row's
 * index, an After row's first Before counterpart's; null when nothing (or a row without one) is
 * selected.
 */
export function selectedMessage(state: StoreState): number | null {
  const { selection, run } = state
  if (!selection || !run) return null
  const rows = run.before.rows
  const id =
    selection.side === 'before'
      ? selection.id
      : run.after.rows.find((r) => r.id === selection.id)?.counterpartIds[0]
  if (id === undefined) return null
  return rows.find((r) => r.id === id)?.index ?? null
}

/** Selects the link's message once a run shows it (and drops it when that run has no such message). */
function applyPendingMessage(): void {
  const { run } = useStore.getState()
  if (pendingMessage === null || !run) return
  const row = run.before.rows[pendingMessage]
  pendingMessage = null
  if (row) useStore.getState().selectRow({ side: 'before', id: row.id, reveal: true })
}

/** Opens the tab a link or a session names (an unknown id is ignored). */
function applyTab(tab: string | null): void {
  if (tab !== null && isTabId(tab) && useStore.getState().tab !== tab) useStore.getState().setTab(tab)
}

/** Reads the `t=`, `tab=` and `m=` entries of `hash` (a link opened or pasted). */
function applyShareEntries(hash: string): void {
  const fingerprint = fingerprintFromHash(hash)
  if (fingerprint !== null) {
    linked = fingerprint
    void checkLinked()
  }
  applyTab(hashEntry(hash, TAB_KEY))
  const message = messageFromHash(hash)
  if (message !== null) {
    pendingMessage = message
    applyPendingMessage()
  }
}

/** Applies the hash's settings, if it has any that differ from the current ones. */
function applyHash(asUndoStep: boolean): void {
  const text = configTextFromHash(window.location.hash)
  if (text !== null) applySettingsText(text, asUndoStep)
}

/**
 * Applies a settings text (`encodeConfig`'s form: a link's `cfg=` or a session file's
 * `settings`) over the current config: what it cannot use, and an HTTP summarizer held back for
 * review, are named in the config notice (saying they came from `source`). As an undo step, or
 * (`asUndoStep` false) as the settings the page opened with. Nothing happens before the first
 * config or when it is the same.
 */
function applySettingsText(text: string, asUndoStep: boolean, source = 'link'): void {
  const state = useStore.getState()
  const current = state.config
  if (!current || text === encodeConfig(current)) return
  const { config, notices } = decodeConfig(text, current)
  const [safe, more] = withoutUnseenEndpoint(config, current)
  const line = noticeLine([...notices, ...more], source)
  if (asUndoStep) {
    state.applyConfig(safe)
    useStore.setState({ configNotice: line })
  } else state.restoreConfig(safe, line)
}

/**
 * Restores what a session file holds besides its transcript (opened before this is called): its
 * settings, watched facts, tab and selected message (a Before position, selected once a run
 * shows it). A notice about a link made on another transcript goes: the session brought its own.
 */
export function restoreSessionState(session: {
  settings: string
  watched: readonly string[]
  tab: string
  message: number | null
}): void {
  linked = null
  setNotice(null)
  applySettingsText(session.settings, false, 'session file')
  useStore.getState().setWatchedFacts(session.watched)
  applyTab(session.tab)
  pendingMessage = session.message
  applyPendingMessage()
  scheduleWrite()
}

/** The hash with every entry this module keeps set from the store (and the share state). */
function nextHash(hash: string): string | null {
  const state = useStore.getState()
  const { config, watchedFacts, tab, info } = state
  if (!config) return null
  let next = hashWithWatched(hashWithConfig(hash, config), watchedFacts)
  // While the notice stands, the link keeps the fingerprint it was made on (a reload says so again).
  const fingerprint = linked ?? (shown?.of === info ? shown.fingerprint : null)
  next = hashWithEntry(next, FINGERPRINT_KEY, fingerprint)
  next = hashWithEntry(next, TAB_KEY, tab === DEFAULT_TAB ? null : tab)
  const message = pendingMessage ?? selectedMessage(state)
  return hashWithEntry(next, MESSAGE_KEY, message === null ? null : String(message))
}

/** Writes the current state into the hash now (cancels a pending debounced write). */
function writeHashNow(): void {
  if (pending !== undefined) clearTimeout(pending)
  pending = undefined
  if (!restored) return
  const next = nextHash(window.location.hash)
  if (next !== null && next !== window.location.hash) window.history.replaceState(window.history.state, '', next)
}

/** Rewrites the hash after the debounce delay (a later change restarts it). */
function scheduleWrite(): void {
  if (pending !== undefined) clearTimeout(pending)
  pending = setTimeout(writeHashNow, HASH_WRITE_DELAY_MS)
}

/**
 * Starts the sync; returns its stop function (for a React effect). The first config the store
 * gets (the worker's defaults) is the base the link's settings are read over, once per page.
 */
export function startUrlSync(): () => void {
  const onConfig = () => {
    const config = useStore.getState().config
    if (!config) return
    if (!restored) {
      restored = true
      applyHash(false)
    }
    scheduleWrite()
  }
  const unsubscribe = useStore.subscribe((state, prev) => {
    if (state.config !== prev.config || state.watchedFacts !== prev.watchedFacts) onConfig()
    else if (state.tab !== prev.tab || state.selection !== prev.selection) scheduleWrite()
    if (state.info !== prev.info) {
      void checkLinked()
      scheduleWrite()
    }
    if (state.run !== prev.run) applyPendingMessage()
  })
  // The watched facts, tab and message of the link need no config: restored at once (the
  // message when a run shows it).
  useStore.getState().setWatchedFacts(watchedFromHash(window.location.hash))
  applyShareEntries(window.location.hash)
  onConfig()
  const onHashChange = () => {
    useStore.getState().setWatchedFacts(watchedFromHash(window.location.hash))
    applyShareEntries(window.location.hash)
    if (restored) applyHash(true)
  }
  window.addEventListener('hashchange', onHashChange)
  return () => {
    unsubscribe()
    window.removeEventListener('hashchange', onHashChange)
  }
}

/**
 * Copies the page's address with the current settings (never the key), the transcript's
 * fingerprint, the tab and the selected message to the clipboard. Falls back to a hidden
 * textarea and `execCommand('copy')` where the Clipboard API is refused. Resolves to whether it
 * worked.
 */
export async function copySettingsLink(): Promise<boolean> {
  await shownFingerprint()
  writeHashNow()
  const href = window.location.href
  try {
    await navigator.clipboard.writeText(href)
    return true
  } catch {
    const area = document.createElement('textarea')
    area.value = href
    area.setAttribute('readonly', '')
    area.style.position = 'fixed'
    area.style.opacity = '0'
    document.body.appendChild(area)
    area.select()
    try {
      return document.execCommand('copy')
    } catch {
      return false
    } finally {
      area.remove()
    }
  }
}

/**
 * Keeps the pipeline config in the URL hash (`#cfg=…`, url-config.ts) and back, and the facts
 * the user watches beside it (`&watch=…`):
 * a link opened restores its settings before the first run; every change rewrites the hash with
 * `history.replaceState` (no history entries), debounced; a link pasted into the same tab
 * (`hashchange`) applies as one undo step. Never the API key, never the transcript.
 */
import type { PipelineConfig } from '../../engine/model'
import { isHttpSummarizer } from '../../state/slices/summarizer'
import { useStore } from '../../state/store'
import {
  configTextFromHash,
  decodeConfig,
  encodeConfig,
  hashWithConfig,
  hashWithWatched,
  noticeLine,
  watchedFromHash,
} from './url-config'

/** How long the hash waits after the last change before it is rewritten (ms). */
const HASH_WRITE_DELAY_MS = 300

let restored = false
let pending: ReturnType<typeof setTimeout> | undefined

function hostOf(url: string): string {
  try {
    return new URL(url).host || url
  } catch {
    return url
  }
}

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

/** Applies the hash's settings, if it has any that differ from the current ones. */
function applyHash(asUndoStep: boolean): void {
  const text = configTextFromHash(window.location.hash)
  const state = useStore.getState()
  const current = state.config
  if (text === null || !current || text === encodeConfig(current)) return
  const { config, notices } = decodeConfig(text, current)
  const [safe, more] = withoutUnseenEndpoint(config, current)
  const notice = noticeLine([...notices, ...more])
  if (asUndoStep) {
    state.applyConfig(safe)
    useStore.setState({ configNotice: notice })
  } else state.restoreConfig(safe, notice)
}

/** Writes the current config into the hash now (cancels a pending debounced write). */
function writeHashNow(): void {
  if (pending !== undefined) clearTimeout(pending)
  pending = undefined
  const { config, watchedFacts } = useStore.getState()
  if (!config || !restored) return
  const next = hashWithWatched(hashWithConfig(window.location.hash, config), watchedFacts)
  if (next !== window.location.hash) window.history.replaceState(window.history.state, '', next)
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
    if (pending !== undefined) clearTimeout(pending)
    pending = setTimeout(writeHashNow, HASH_WRITE_DELAY_MS)
  }
  const unsubscribe = useStore.subscribe((state, prev) => {
    if (state.config !== prev.config || state.watchedFacts !== prev.watchedFacts) onConfig()
  })
  // The watched facts of the link (`watch=`) need no config: restored at once.
  useStore.getState().setWatchedFacts(watchedFromHash(window.location.hash))
  onConfig()
  const onHashChange = () => {
    useStore.getState().setWatchedFacts(watchedFromHash(window.location.hash))
    if (restored) applyHash(true)
  }
  window.addEventListener('hashchange', onHashChange)
  return () => {
    unsubscribe()
    window.removeEventListener('hashchange', onHashChange)
  }
}

/**
 * Copies the page's address with the current settings (never the key) to the clipboard. Falls back
 * to a hidden textarea and `execCommand('copy')` where the Clipboard API is refused. Resolves to
 * whether it worked.
 */
export async function copySettingsLink(): Promise<boolean> {
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

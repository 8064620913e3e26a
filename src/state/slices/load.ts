import { proxy } from 'comlink'
import { getEngine } from '../../app/engine-client'
import { fileOverLimit, MAX_INPUT_BYTES } from '../../engine/formats/limits'
import type { ImportError } from '../../engine/formats/types'
import type { ImportHead, ImportOutcome, ImportProgress, TranscriptInfo } from '../../worker/protocol'
import type { SliceCreator } from './types'

/** One entry of public/samples/index.json. */
interface SampleEntry {
  file: string
  label: string
  format: string
  description: string
}

/** Where the current transcript came from, kept so a re-created worker can re-import it. */
type TranscriptSource =
  | { kind: 'sample'; file: string }
  | { kind: 'file'; file: Blob; fileName: string }
  | { kind: 'text'; text: string; fileName: string }

/** A failed (or cancelled) import, shown as a one-line banner; the previous transcript stays loaded. */
interface ImportFailure {
  fileName: string
  error: ImportError
  /** The person cancelled it (`cancelImport`): a notice, not an error. */
  cancelled?: true
}

/** Progress of a streamed import, for the progress bar. */
export interface LoadProgress extends ImportProgress {
  fileName: string
}

/** The sample that opens on first start (SPEC §6). */
const FIRST_SAMPLE = 'claude-code.jsonl'

/**
 * Loading transcripts: samples, files, pasted text. Imports are applied in request order, except
 * that a newer file, sample or pasted text supersedes the one being read: that read is abandoned
 * (in the worker too) and its outcome never applied.
 */
export interface LoadSlice {
  info: TranscriptInfo | null
  source: TranscriptSource | null
  samples: SampleEntry[]
  /** Progress text while a load is in flight, else null. */
  loading: string | null
  /** Bytes/records of the file being streamed into the worker, else null. */
  importProgress: LoadProgress | null
  importFailure: ImportFailure | null
  /**
   * The first Before rows of a large file still being imported and counted (estimated tokens),
   * shown instead of the columns until the first run of that file arrives; else null (BENCH B10).
   */
  importHead: (ImportHead & { fileName: string }) | null
  /**
   * The name of the file, sample or pasted text chosen to replace the open transcript, from the
   * moment it is chosen until it is applied, fails or is cancelled (the header names it, not the
   * transcript still open); null otherwise, also while a conversation of the open file opens.
   */
  loadingFile: string | null
  /** When the import in flight started (ms since epoch), to offer its Cancel; null when none is. */
  importStartedAt: number | null
  /**
   * Cancels the import in flight at any point (reading, parsing or building): the worker is
   * terminated and re-created, and the transcript that was open before is imported and run again
   * (unless a file chosen meanwhile is about to open; a re-import after a run's hard cancel comes
   * back without running). The notice names the cancelled file. Nothing happens when no import is
   * in flight.
   */
  cancelImport: () => Promise<void>
  /** First start: fetch the gallery and the defaults, then open the Claude Code sample. */
  start: () => Promise<void>
  loadSample: (file: string) => Promise<void>
  loadFile: (file: File) => Promise<void>
  /**
   * Opens several files as one input (a dropped folder: a Cline task, OpenCode storage, an
   * OpenHands conversation): the worker packs them into a stored zip named `zipName`, which then
   * opens as a dropped zip would (`loadFile`). `name` is each file's path inside the folder.
   */
  loadFiles: (files: { name: string; file: File }[], zipName: string) => Promise<void>
  loadText: (text: string, fileName?: string) => Promise<void>
  dismissImportError: () => void
  /** Opens the file's main conversation or one of its sidechains (sub-agents) by index. */
  openConversation: (which: 'main' | number) => Promise<void>
  /**
   * Re-imports the current source into a fresh worker after a hard cancel, without running the
   * pipeline: the run that was cancelled would only start again (a text slow to count, a 50 MB
   * file); the next settings change runs it.
   */
  reimport: () => Promise<void>
  /**
   * The open file's fingerprint (12 hex digits of the SHA-256 of its transcript, engine
   * `transcriptFingerprint`; never its text or name), made by the worker on first request; null
   * when nothing is open or the worker did not answer.
   */
  fingerprint: () => Promise<string | null>
}

function samplesUrl(file: string): string {
  return `${import.meta.env.BASE_URL}samples/${file}`
}

export const createLoadSlice: SliceCreator<LoadSlice> = (set, get, _api, events) => {
  // Imports run one after another, so the UI and the worker agree on the loaded transcript.
  let queue: Promise<void> = Promise.resolve()
  let started = false
  // A re-import (after a hard cancel) reopens what was already sent: the send step still holds.
  let reimporting = false

  const enqueue = (task: () => Promise<void>): Promise<void> => {
    queue = queue.then(task, task)
    return queue
  }

  const ensureDefaults = async () => {
    if (!get().config) set({ config: await getEngine().getDefaults() })
  }

  /**
   * Applies an outcome: a failure leaves the open transcript (and clears what the load showed); a
   * success replaces it and runs it, unless it is a re-import after a hard cancel.
   */
  const apply = (fileName: string, source: TranscriptSource, outcome: ImportOutcome, reimport: boolean, replaces: boolean) => {
    const ended = replaces ? { loadingFile: null } : {}
    if (!outcome.ok) {
      set({ ...ended, loading: null, importProgress: null, importHead: null, importFailure: { fileName, error: outcome.error } })
      return
    }
    set({
      ...ended,
      info: outcome.info,
      source,
      loading: reimport ? null : 'Counting tokens and running the pipeline…',
      importProgress: null,
      importFailure: null,
    })
    // Every slice forgets what belonged to the transcript before, each its own fields.
    events.emit('transcriptChanged', { info: outcome.info, reimport })
    if (!reimport) get().requestRun()
  }

  // The import in flight: its file, whether it re-imports after a hard cancel, how to end its wait
  // when it is cancelled, and (for a file, sample or text) how a newer one supersedes it; and how
  // many loads wait behind it.
  let inFlight: { fileName: string; reimport: boolean; cancel: () => void; supersede: (() => void) | null } | null = null
  let waiting = 0
  // Files, samples and texts chosen so far: only the last one chosen is read and applied.
  let chosen = 0

  /**
   * Reads, imports and applies one source; failures never throw out of the store. A load that
   * `replaces` the open transcript (a file, sample or text, not a conversation of the open file)
   * supersedes the one of that kind in flight at once, and is skipped when a newer one was chosen
   * before its turn. `read` is told whether its load is still wanted (`alive`), to start nothing
   * more once it is not.
   */
  const load = (
    fileName: string,
    source: TranscriptSource,
    read: (alive: () => boolean) => Promise<ImportOutcome>,
    replaces: boolean,
  ) => {
    const reimport = reimporting
    const ticket = replaces ? ++chosen : chosen
    const newest = () => !replaces || ticket === chosen
    if (replaces) {
      // The header names this file from now on: another file's streamed head goes with it.
      set({ loadingFile: fileName, importHead: null })
      inFlight?.supersede?.()
    }
    waiting++
    return enqueue(async () => {
      waiting--
      if (!newest()) return
      set({ importStartedAt: Date.now() })
      events.emit('loadStarted', { fileName })
      let ended = false
      const alive = () => !ended && newest()
      // A terminated worker never answers, a superseded read is not waited for: both end the wait.
      const stopped = new Promise<'stopped'>((resolve) => {
        const end = () => {
          ended = true
          resolve('stopped')
        }
        const supersede = () => {
          end()
          // What the abandoned read showed goes at once; the newer load shows its own.
          set({ importProgress: null, importHead: null })
          // The worker stops reading at its next piece (the newer import would stop it too, later).
          Promise.resolve()
            .then(() => getEngine().abortImport())
            .catch(() => {})
        }
        inFlight = { fileName, reimport, cancel: end, supersede: replaces ? supersede : null }
      })
      const start = async () => {
        await ensureDefaults()
        return alive() ? read(alive) : ('stopped' as const)
      }
      try {
        const outcome = await Promise.race([start(), stopped])
        if (outcome !== 'stopped' && alive()) apply(fileName, source, outcome, reimport, replaces)
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e)
        if (alive()) {
          const failure = { fileName, error: { message } }
          set({ ...(replaces ? { loadingFile: null } : {}), loading: null, importProgress: null, importHead: null, importFailure: failure })
        }
      } finally {
        inFlight = null
        set({ importStartedAt: null })
      }
    })
  }

  /**
   * Streams a Blob into the worker, which reads and parses it there (the page never holds its
   * text) and reports progress through a comlink proxy, about ten times a second. A Blob over
   * `MAX_INPUT_BYTES` is refused at once (`fileOverLimit`), never sent.
   */
  const readBlob = (blob: Blob, fileName: string, alive: () => boolean): Promise<ImportOutcome> => {
    // Refused by its size before the worker reads a byte (an archive's entries have their own budget).
    if (blob.size > MAX_INPUT_BYTES) return Promise.resolve({ ok: false, error: { message: fileOverLimit(blob.size) } })
    set({ loading: `Reading ${fileName} (${formatBytes(blob.size)})…`, importProgress: null, importHead: null })
    // Progress reports come through their own message port, so one can arrive after the outcome:
    // applied then, it would bring back a finished bar and a "Building…" that never clears.
    let live = true
    const onProgress = (p: ImportProgress) => {
      if (!live || !alive()) return
      if (p.head) {
        set({ importHead: { ...p.head, fileName } })
        return
      }
      set({
        importProgress: { ...p, fileName },
        loading: p.phase === 'building' ? `Building the transcript of ${fileName}…` : `Reading ${fileName}…`,
      })
    }
    return getEngine()
      .importBlob(blob, fileName, proxy(onProgress))
      .finally(() => {
        live = false
      })
  }

  /** Imports `source` again (into a fresh worker) and returns to the conversation that was open. */
  const reopen = async (source: TranscriptSource, open: 'main' | number) => {
    if (source.kind === 'sample') await get().loadSample(source.file)
    else if (source.kind === 'file') await loadBlob(source.file, source.fileName)
    else await get().loadText(source.text, source.fileName)
    // A fresh worker opens the main line: return to the sub-agent that was open.
    if (open !== 'main') await get().openConversation(open)
  }

  /** Opens a File/Blob as the transcript (`readBlob`), superseding a load in flight. */
  const loadBlob = (blob: Blob, fileName: string) =>
    load(fileName, { kind: 'file', file: blob, fileName }, (alive) => readBlob(blob, fileName, alive), true)

  const readSample = async (file: string, alive: () => boolean): Promise<ImportOutcome> => {
    set({ loading: `Fetching sample ${file}…` })
    const response = await fetch(samplesUrl(file))
    if (!response.ok) return { ok: false, error: { message: `could not fetch sample (HTTP ${response.status})` } }
    const blob = await response.blob()
    // Superseded while it downloaded: its outcome is not waited for, and its import never starts.
    if (!alive()) return { ok: false, error: { message: 'a newer file replaced this one' } }
    return readBlob(blob, file, alive)
  }

  return {
    info: null,
    source: null,
    samples: [],
    loading: null,
    importProgress: null,
    importFailure: null,
    importHead: null,
    start: async () => {
      if (started) return
      started = true
      set({ loading: 'Starting the engine…' })
      // Load the tokenizer while the sample downloads; a failure surfaces in the first run.
      getEngine().warmUp('o200k_base').catch(() => {})
      try {
        const response = await fetch(samplesUrl('index.json'))
        if (response.ok) set({ samples: (await response.json()) as SampleEntry[] })
      } catch {
        // The gallery is optional: the file picker, drop and paste still work without it.
      }
      await get().loadSample(FIRST_SAMPLE)
    },
    loadSample: (file) => load(file, { kind: 'sample', file }, (alive) => readSample(file, alive), true),
    loadFile: (file) => loadBlob(file, file.name),
    loadFiles: async (files, zipName) => {
      const zip = await getEngine().zipFiles(files)
      await loadBlob(new File([zip as BlobPart], zipName), zipName)
    },
    loadText: (text, fileName = 'pasted text') =>
      load(
        fileName,
        { kind: 'text', text, fileName },
        async () => {
          set({ loading: 'Parsing pasted text…' })
          return getEngine().importText(text, fileName)
        },
        true,
      ),
    dismissImportError: () => set({ importFailure: null }),
    importStartedAt: null,
    loadingFile: null,
    cancelImport: async () => {
      const current = inFlight
      if (!current) return
      get().resetEngine()
      current.cancel()
      // A file chosen meanwhile still opens next: the header goes on naming it.
      set({ loading: null, importProgress: null, importHead: null, ...(waiting > 0 ? {} : { loadingFile: null }) })
      // A re-import after a hard cancel of a run: the transcript comes back without running, as
      // that cancel left it (its banner still offers "Run again").
      if (current.reimport) {
        await get().reimport()
        return
      }
      const notice: ImportFailure = {
        fileName: current.fileName,
        error: { message: 'stopped before it finished' },
        cancelled: true,
      }
      set({ importFailure: notice })
      // A file chosen meanwhile opens next, into the fresh worker: it replaces what was open.
      if (waiting > 0) return
      // The fresh worker holds nothing: the previous transcript comes back whole, and runs.
      const previous = get().source
      if (!previous) return
      await reopen(previous, get().info?.open ?? 'main')
      if (!get().importFailure) set({ importFailure: notice })
    },
    openConversation: (which) => {
      const source = get().source
      const fileName = get().info?.fileName
      if (!source || fileName === undefined) return Promise.resolve()
      return load(
        fileName,
        source,
        async () => {
          set({ loading: which === 'main' ? 'Opening the main conversation…' : 'Opening the sub-agent…' })
          return getEngine().openConversation(which)
        },
        false,
      )
    },
    fingerprint: () => getEngine().fingerprint().catch(() => null),
    reimport: async () => {
      const source = get().source
      if (!source) return
      reimporting = true
      try {
        await reopen(source, get().info?.open ?? 'main')
      } finally {
        reimporting = false
      }
    },
  }
}

/** `1.2 MB`, `34 KB`, `512 B`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`
  return `${bytes} B`
}

/**
 * Everything the UI may ask of the engine worker (DESIGN §1): one plain object of functions,
 * so tests call it directly without a Worker. Contract: every argument and result is
 * structured-cloneable plain data, and no function throws across the boundary — failures
 * come back as `{ ok: false, error }`.
 *
 * The worker owns the transcript and the last RunResult; the UI receives row metadata
 * (`RunView`) and fetches full content per row with `getMessageDetail`.
 */
import { importBytes, importTranscript } from '../engine/formats'
import type { ImportResult } from '../engine/formats/types'
import type { Encoding, Message, PipelineConfig, RunResult, Transcript } from '../engine/model'
import { DEFAULT_PIPELINE, runPipeline } from '../engine/pipeline'
import { loadCounter } from '../engine/tokens/count'
import type { ImportOutcome, MessageDetail, RunOutcome, Side, TranscriptInfo } from './protocol'
import { buildMessageDetail, buildRunView } from './view'

interface WorkerState {
  transcript: Transcript | null
  fileName: string
  result: RunResult | null
  /** The cooperative cancel flag of the run in flight; a newer run raises it. */
  running: { aborted: boolean } | null
}

const state: WorkerState = { transcript: null, fileName: '', result: null, running: null }

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}

function infoOf(transcript: Transcript, fileName: string): TranscriptInfo {
  const info: TranscriptInfo = {
    fileName,
    format: transcript.format,
    messageCount: transcript.messages.length,
    recordedCompactions: transcript.recordedCompactions.map((c) => ({ ...c })),
    warnings: [...transcript.warnings],
  }
  if (transcript.title !== undefined) info.title = transcript.title
  return info
}

function accept(result: ImportResult, fileName: string): ImportOutcome {
  if (!result.ok) return { ok: false, error: { ...result.error } }
  if (result.transcript.messages.length === 0) {
    return { ok: false, error: { message: 'the transcript has no messages' } }
  }
  // Only a successful import replaces the transcript: a bad file never loses the previous one.
  state.transcript = result.transcript
  state.fileName = fileName
  state.result = null
  return { ok: true, info: infoOf(result.transcript, fileName) }
}

function guardImport(fileName: string, load: () => ImportResult): ImportOutcome {
  try {
    return accept(load(), fileName)
  } catch (e) {
    // Importers promise not to throw; this keeps the promise at the boundary even if one does.
    return { ok: false, error: { message: `import failed: ${errorText(e)}` } }
  }
}

function findMessage(side: Side, id: string): Message | undefined {
  const list = side === 'before' ? state.result?.before.messages ?? state.transcript?.messages : state.result?.after.messages
  return list?.find((m) => m.id === id)
}

export const engineApi = {
  /** The engine's default pipeline (the UI has no copy of it). */
  getDefaults(): PipelineConfig {
    return structuredClone(DEFAULT_PIPELINE)
  },

  /** Loads the token counter ahead of the first run (its rank tables are MBs). */
  async warmUp(encoding: Encoding): Promise<void> {
    await loadCounter(encoding)
  },

  /** Imports a transcript from text (paste, sample). */
  importText(text: string, fileName: string): ImportOutcome {
    return guardImport(fileName, () => importTranscript(text, { fileName }))
  },

  /** Imports a transcript from file bytes (transferred, not copied). */
  importFile(bytes: ArrayBuffer, fileName: string): ImportOutcome {
    return guardImport(fileName, () => importBytes(new Uint8Array(bytes), { fileName }))
  },

  /**
   * Runs the pipeline over the loaded transcript. A newer `run` call cancels this one at its
   * next await (the UI also drops stale results by `runId`).
   */
  async run(config: PipelineConfig, runId: number): Promise<RunOutcome> {
    const transcript = state.transcript
    if (!transcript) return { ok: false, error: 'no transcript loaded' }
    if (state.running) state.running.aborted = true
    const signal = { aborted: false }
    state.running = signal
    try {
      const counter = await loadCounter(config.encoding)
      if (signal.aborted) return { ok: false, error: 'cancelled', cancelled: true }
      const result = await runPipeline(transcript, config, { counter, signal })
      if (signal.aborted) return { ok: false, error: 'cancelled', cancelled: true }
      // Another import may have replaced the transcript while this run awaited.
      if (state.transcript !== transcript) return { ok: false, error: 'cancelled', cancelled: true }
      state.result = result
      return { ok: true, view: buildRunView(result, runId, config.encoding) }
    } catch (e) {
      if (signal.aborted) return { ok: false, error: 'cancelled', cancelled: true }
      return { ok: false, error: errorText(e) }
    } finally {
      if (state.running === signal) state.running = null
    }
  },

  /** Full content of one row of the last run (before rows also work before any run). */
  getMessageDetail(side: Side, id: string): MessageDetail | null {
    const message = findMessage(side, id)
    return message ? buildMessageDetail(message, side) : null
  },

  /** The exact prompt of a pass of the last run, or null. */
  getPassPrompt(passNumber: number, stage?: string): string | null {
    const pass = state.result?.passes.find((p) => p.pass === passNumber && (stage === undefined || p.stage === stage))
    return pass?.prompt ?? null
  },
}

export type EngineApi = typeof engineApi

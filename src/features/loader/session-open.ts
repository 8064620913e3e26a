/**
 * Session files in the page: writing one from what the page shows (the "Session file" button),
 * and opening one wherever a transcript can be opened (file picker, drop, paste). A file that is
 * not a session file opens as a transcript, exactly as before.
 */
import { downloadBlob } from '../../app/download'
import { useStore } from '../../state/store'
import { restoreSessionState, selectedMessage, TAB_ID_LIST } from '../pipeline/url-sync'
import { encodeConfig } from '../pipeline/url-config'
import {
  isSessionFile,
  parseSessionFile,
  sessionFileName,
  transcriptBytes,
  transcriptData,
  writeSessionFile,
  type SessionFile,
} from './session-file'

/** Characters read from the start of a file to tell a session file by its `kind` header. */
const HEAD_CHARS = 256

/** Shows a session file's problem in the import error banner (the transcript shown stays). */
function fail(fileName: string, message: string): void {
  useStore.setState({ importFailure: { fileName, error: { message: `session file: ${message}` } } })
}

/**
 * Opens a validated session: its transcript under its own file name (any input format, binary
 * ones included), the conversation that was open, then its settings, watched facts, tab and
 * selected message. Nothing is restored when the transcript does not import (its error shows).
 */
async function openSession(session: SessionFile): Promise<void> {
  const { fileName, conversation } = session.transcript
  const bytes = transcriptBytes(session)
  const state = useStore.getState()
  await state.loadFile(new File([bytes as BlobPart], fileName))
  if (useStore.getState().importFailure || useStore.getState().info?.fileName !== fileName) return
  if (conversation !== 'main') await useStore.getState().openConversation(conversation)
  restoreSessionState(session)
}

/** Opens a session file's text, or names what is wrong with it. Resolves to the problem, or null. */
async function openSessionText(text: string, fileName: string): Promise<string | null> {
  const parsed = parseSessionFile(text, TAB_ID_LIST)
  if (!parsed.ok) {
    fail(fileName, parsed.error)
    return `session file: ${parsed.error}`
  }
  await openSession(parsed.session)
  return null
}

/** Opens a chosen or dropped file: a session file restores its session, anything else imports as a transcript. */
export async function openInputFile(file: File): Promise<void> {
  let head = ''
  try {
    head = await file.slice(0, HEAD_CHARS).text()
  } catch {
    // Unreadable here: the import reads it and says why.
  }
  if (!isSessionFile(file.name, head)) {
    await useStore.getState().loadFile(file)
    return
  }
  await openSessionText(await file.text(), file.name)
}

/**
 * Opens pasted text: a session file restores its session, anything else imports as a transcript.
 * Resolves to the session file's problem (also shown in the import error banner), or null.
 */
export async function openPastedText(text: string): Promise<string | null> {
  if (!isSessionFile('', text.slice(0, HEAD_CHARS))) {
    await useStore.getState().loadText(text, 'pasted text')
    return null
  }
  return openSessionText(text, 'pasted session file')
}

/** The bytes of the transcript shown, as it was opened (a sample is fetched again). */
async function sourceBytes(): Promise<{ bytes: Uint8Array; fileName: string } | null> {
  const { source } = useStore.getState()
  if (!source) return null
  if (source.kind === 'text') return { bytes: new TextEncoder().encode(source.text), fileName: source.fileName }
  if (source.kind === 'file') return { bytes: new Uint8Array(await source.file.arrayBuffer()), fileName: source.fileName }
  const response = await fetch(`${import.meta.env.BASE_URL}samples/${source.file}`)
  if (!response.ok) throw new Error(`could not fetch sample ${source.file} (HTTP ${response.status})`)
  return { bytes: new Uint8Array(await response.arrayBuffer()), fileName: source.file }
}

/**
 * The session file's text for what the page shows now: the transcript's original bytes and
 * file name, the open conversation, the settings (as a link carries them: never an API key), the
 * watched facts, the tab and the selected message. Null when no transcript is open.
 */
async function currentSessionFile(): Promise<{ text: string; fileName: string } | null> {
  const state = useStore.getState()
  const { config, info } = state
  if (!config || !info) return null
  const source = await sourceBytes()
  if (!source) return null
  const text = writeSessionFile({
    transcript: { fileName: source.fileName, ...transcriptData(source.bytes), conversation: info.open },
    settings: encodeConfig(config),
    watched: [...state.watchedFacts],
    tab: state.tab,
    message: selectedMessage(state),
  })
  return { text, fileName: sessionFileName(source.fileName) }
}

/** Downloads the session file of what the page shows. Resolves to the file name, or throws why not. */
export async function downloadSessionFile(): Promise<string> {
  const file = await currentSessionFile()
  if (!file) throw new Error('no transcript is open')
  downloadBlob(new Blob([file.text], { type: 'application/json' }), file.fileName)
  return file.fileName
}

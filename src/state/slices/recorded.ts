import { getEngine } from '../../app/engine-client'
import type { RecordedRunView } from '../../worker/protocol'
import { latestRequest } from '../latest'
import type { SliceCreator } from './types'

/**
 * What the After column shows: the simulated pipeline, what the agent recorded it kept after its
 * own compaction, or both side by side.
 */
export type AfterMode = 'simulated' | 'recorded' | 'versus'

/** The recorded compaction view of the open transcript and the After column's mode. */
export interface RecordedSlice {
  afterMode: AfterMode
  /** The recorded view (with its comparison to the last simulated run), once fetched. */
  recorded: RecordedRunView | null
  recordedStatus: 'idle' | 'running' | 'done' | 'error'
  recordedError: string | null
  /** Which recorded compaction to show (0-based); null = the last one. */
  recordedCompaction: number | null
  setAfterMode: (mode: AfterMode) => void
  /** Chooses a recorded compaction (0-based) and fetches its view. */
  setRecordedCompaction: (compaction: number) => void
  /**
   * Fetches the recorded view for the current transcript, compaction and encoding. When another
   * transcript opens the view is forgotten; if the new one records no compaction, the After
   * column goes back to the simulation, else the mode stays and its view is fetched again.
   */
  requestRecorded: () => void
}

export const createRecordedSlice: SliceCreator<RecordedSlice> = (set, get, _api, events) => {
  const requests = latestRequest()

  events.on('transcriptChanged', ({ info }) => {
    const available = info.recordedCompactions.length > 0
    requests.drop()
    set({
      recorded: null,
      recordedStatus: 'idle',
      recordedError: null,
      recordedCompaction: null,
      ...(available ? {} : { afterMode: 'simulated' as const }),
    })
    if (available && get().afterMode !== 'simulated') get().requestRecorded()
  })

  return {
    afterMode: 'simulated',
    recorded: null,
    recordedStatus: 'idle',
    recordedError: null,
    recordedCompaction: null,
    setAfterMode: (afterMode) => {
      if (afterMode === get().afterMode) return
      set({ afterMode, selection: null })
      if (afterMode !== 'simulated') get().requestRecorded()
    },
    setRecordedCompaction: (compaction) => {
      set({ recordedCompaction: compaction, selection: null })
      get().requestRecorded()
    },
    requestRecorded: () => {
      const { info, config, recordedCompaction } = get()
      if (!info || info.recordedCompactions.length === 0 || !config) return
      const ticket = requests.next()
      set({ recordedStatus: 'running' })
      const done = (patch: Partial<RecordedSlice>) => {
        if (ticket.isLatest()) set(patch)
      }
      getEngine()
        .runRecorded(config.encoding, recordedCompaction ?? undefined, config.calibration)
        .then(
          (outcome) =>
            done(
              outcome.ok
                ? { recorded: outcome.recorded, recordedStatus: 'done', recordedError: null }
                : { recordedStatus: 'error', recordedError: outcome.error },
            ),
          (e: unknown) =>
            done({ recordedStatus: 'error', recordedError: e instanceof Error ? e.message : String(e) }),
        )
    },
  }
}

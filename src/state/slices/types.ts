import type { StoreApi } from 'zustand'
import type { StoreEvents } from '../events'
import type { CompareSlice } from './compare'
import type { CostsSlice } from './costs'
import type { ExportSlice } from './export'
import type { FactTableSlice } from './fact-table'
import type { FactsSlice } from './facts'
import type { FailureModesSlice } from './failure-modes'
import type { LoadSlice } from './load'
import type { PipelineSlice } from './pipeline'
import type { PlaybackSlice } from './playback'
import type { RecordedSlice } from './recorded'
import type { ReworkSlice } from './rework'
import type { RunSlice } from './run'
import type { StagesSlice } from './stages'
import type { SummarizerSlice } from './summarizer'
import type { SweepSlice } from './sweep'
import type { TurnsSlice } from './turns'
import type { ViewSlice } from './view'

/** The whole store: the union of its slices. */
export type StoreState = LoadSlice & PipelineSlice & RunSlice & ViewSlice & RecordedSlice & ExportSlice &
  SummarizerSlice & FactsSlice & FactTableSlice & TurnsSlice & StagesSlice &
  SweepSlice & CostsSlice & FailureModesSlice & ReworkSlice & CompareSlice & PlaybackSlice

/**
 * A slice creator over the whole store (zustand slices pattern): `set`, `get` and the store API,
 * plus the store's events, which a slice answers by resetting its own fields.
 */
export type SliceCreator<T> = (
  set: StoreApi<StoreState>['setState'],
  get: StoreApi<StoreState>['getState'],
  api: StoreApi<StoreState>,
  events: StoreEvents,
) => T

import { wrap, type Remote } from 'comlink'
import type { EngineApi } from '../worker/engine-api'

let worker: Worker | undefined
let engine: Remote<EngineApi> | undefined

/** The engine worker, started lazily on first use; every caller shares one instance. */
export function getEngine(): Remote<EngineApi> {
  if (!engine) {
    // Keep `new URL(...)` inline: Vite only bundles the worker in this exact form.
    worker = new Worker(new URL('../worker/engine.worker.ts', import.meta.url), { type: 'module' })
    engine = wrap<EngineApi>(worker)
  }
  return engine
}

/**
 * Hard cancel: terminates the worker (and whatever it is computing) and forgets it; the next
 * `getEngine()` starts a fresh one, which holds no transcript until the caller re-imports.
 */
export function restartEngine(): void {
  worker?.terminate()
  worker = undefined
  engine = undefined
}

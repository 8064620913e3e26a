/**
 * The CLI's regex time guard, as the page's (src/worker/fact-search.ts `workerRegexProbe`): a
 * regular expression is first run over the run's texts on a worker thread, which is terminated
 * when it passes the deadline — the only way to stop a backtracking RegExp in JavaScript — so
 * `find --regex '(a+)+$'` over a long run of "a" answers instead of hanging.
 */
import { Worker } from 'node:worker_threads'

/**
 * The guard thread (CommonJS, evaluated): every match of the regex over every text, as the
 * page's guard worker (regex-guard.worker.ts) and the search's count visit them.
 */
const GUARD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const re = new RegExp(workerData.source, 'g')
for (const text of workerData.texts) for (const m of text.matchAll(re)) void m
parentPort.postMessage('done')
`

/**
 * Runs regex `source` (valid, no flags) over `texts` on a worker thread: `'ok'` when it finished
 * within `deadlineMs`, `'timeout'` when it did not (the thread is terminated).
 */
export function probeRegex(source: string, texts: readonly string[], deadlineMs: number): Promise<'ok' | 'timeout'> {
  const worker = new Worker(GUARD_SOURCE, { eval: true, workerData: { source, texts } })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void worker.terminate()
      resolve('timeout')
    }, deadlineMs)
    const settle = (then: () => void) => {
      clearTimeout(timer)
      then()
    }
    worker.once('message', () => settle(() => void worker.terminate().then(() => resolve('ok'))))
    worker.once('error', (e) => settle(() => reject(e)))
  })
}

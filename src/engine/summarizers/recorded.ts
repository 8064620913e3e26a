/**
 * The `recorded` summarizer: answers with the summary the source transcript already contains
 * (the agent's own recorded compaction, `RecordedCompaction.summaryText`), so a simulated pass
 * can be read with the words the agent really kept. No model, no network. Source: SPEC §3.6.
 */
import type { RecordedCompaction } from '../model'
import type { Summarizer } from '../stages/types'
import { SummarizerError } from './errors'

/**
 * A summarizer over `compactions`: for a request whose slice ends at message index `e` (the
 * largest `Message.index` in the slice), the newest recorded compaction with a readable summary
 * whose boundary `atIndex` is at or before `e + 1` — the summary the agent had written by the
 * time those messages were over. Rejects with `SummarizerError('config')` when the transcript
 * holds no recorded compaction, only encrypted ones, or none that early. Pure.
 */
export function createRecordedSummarizer(
  compactions: readonly RecordedCompaction[],
): Summarizer {
  const readable = compactions
    .filter((c): c is RecordedCompaction & { summaryText: string } => !!c.summaryText?.trim())
    .slice()
    .sort((a, b) => a.atIndex - b.atIndex)
  return (request) => {
    if (readable.length === 0) {
      return Promise.reject(
        new SummarizerError(
          'config',
          compactions.length === 0
            ? 'the recorded summarizer needs a transcript with a recorded compaction; ' +
                'this one has none'
            : 'the recorded compaction(s) of this transcript hold no readable summary ' +
                '(encrypted or opaque)',
        ),
      )
    }
    const end = request.slice.reduce((n, m) => Math.max(n, m.index), -1)
    let found: (typeof readable)[number] | undefined
    for (const c of readable) if (c.atIndex <= end + 1) found = c
    if (!found) {
      return Promise.reject(
        new SummarizerError(
          'config',
          `no recorded summary covers messages up to ${end}: the agent's first recorded ` +
            `compaction is at message ${readable[0]?.atIndex}`,
        ),
      )
    }
    return Promise.resolve(found.summaryText.trim())
  }
}

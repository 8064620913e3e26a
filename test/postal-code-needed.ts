/**
 * The postal-code fixture (test/fixtures/facts/postal-code-needed.json) and what it tells: the
 * catalog search returns 42 lamp ids (LMP-1001…LMP-1042, message 3), the user picks LMP-1007
 * (message 5), the assistant reads the postal code 01310-100 from the account (message 6: "Your
 * account's postal code is 01310-100."), and message 11 says "Ship it to the postal code from
 * earlier." The user never types the code: the offline summarizer keeps every value a user
 * states (its `User stated` line), so only a value the assistant said can fall to its 40-fact cap.
 * Under summarize keep_last 2 / compact_after 4 pass 1 fires at the turn end 6 (1–6 unsummarized,
 * > 4), folds 1–4 and keeps 5–6; its `Facts` line holds the first 40 lamp ids (MAX_FACTS; 41 and
 * 42 are left out). Pass 2 fires at 10 (5–10, > 4) and folds 5–8 with pass 1's summary, whose 40
 * lamp ids come first on the `Facts` line; the postal code, the 41st, is left out (it is no
 * commitment, question, open item or decision, so no line above it quotes it), and message 11,
 * whose "earlier" refers back to a postal code, needs it. No user stated a postal code, so the
 * back-reference is not tied to the user's own values. Node only.
 */
import { readFileSync } from 'node:fs'
import { importTranscript } from '../src/engine/formats/index'
import type { NeededAfterLoss } from '../src/engine/facts/needed'
import type { Transcript } from '../src/engine/model'

/** The fixture's path, from the repository root's `test/` folder. */
export const POSTAL_CODE_FIXTURE = new URL('./fixtures/facts/postal-code-needed.json', import.meta.url)

/** The fixture, imported. Throws when it does not import. */
export function postalCodeTranscript(): Transcript {
  const r = importTranscript(readFileSync(POSTAL_CODE_FIXTURE, 'utf8'))
  if (!r.ok) throw new Error(r.error.message)
  return r.transcript
}

/**
 * How the postal code was needed under keep_last 2 / compact_after 4: lost at pass 2 (fired at
 * the turn end 10), needed by the user's message 11 referring back to it ("earlier").
 */
export const POSTAL_CODE_NEEDED: NeededAfterLoss = {
  stage: 'summarize',
  pass: 2,
  atMessage: 10,
  messageId: 'm11',
  messageIndex: 11,
  role: 'user',
  how: 'back-reference',
  phrase: 'Ship it to the postal code from earlier.',
}

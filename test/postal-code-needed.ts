/**
 * The postal-code fixture (test/fixtures/facts/postal-code-needed.json) and what it tells: the
 * catalog search returns 42 lamp ids (message 3), the user gives the postal code 01310-100 at
 * message 5, and message 11 says "Ship it to the postal code I gave you." Under summarize
 * keep_last 2 / compact_after 4 pass 1 fires at the turn end 6 and folds 1–4, pass 2 at 10 folds
 * 5–8 with pass 1's summary, whose 40 facts (the first 40 lamp ids, the extractive summary's
 * MAX_FACTS) come first: the postal code is left out, and message 11 needs it. Node only.
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

/** How the postal code was needed under keep_last 2 / compact_after 4. */
export const POSTAL_CODE_NEEDED: NeededAfterLoss = {
  stage: 'summarize',
  pass: 2,
  atMessage: 10,
  messageId: 'm11',
  messageIndex: 11,
  role: 'user',
  how: 'back-reference',
  phrase: 'Ship it to the postal code I gave you.',
}

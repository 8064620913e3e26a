/**
 * Facts needed after they were lost: a fact a compaction pass took out of the context (its
 * verbatim holders folded, its summary silent about it) that the conversation mentions again
 * after that pass fired — the user repeating it or referring back to it ("ship it to the postal
 * code I gave you"), the assistant using it, a tool result bringing it back. Read from the
 * replay (the facts table's pass states) and the Before's text; no model is asked. What the
 * finder and the facts table cannot say: which losses the agent ran into. Source: SPEC §6.
 */
import { contentText } from '../content'
import type { Message, Role, StageId } from '../model'
import { cutCodePoints } from '../util/text'
import { isOrdinaryUser, isSummaryMessage } from './classify'
import type { PassRun } from './pass-runs'
import type { FactKind } from './patterns'

/**
 * The nouns a message refers back to a fact by, and the fact kinds each names. Tried in order,
 * each match blanked before the next noun is tried ("e-mail address" is an e-mail, not an
 * address). Case-insensitive. The one table of back-reference nouns.
 */
const BACK_REFERENCE_NOUNS: readonly { noun: RegExp; kinds: readonly FactKind[] }[] = [
  { noun: /\b(?:postal codes?|post ?codes?|zip(?: codes?)?|cep)\b/gi, kinds: ['postal-code'] },
  { noun: /\be-?mail(?: address)?(?:es)?\b/gi, kinds: ['email'] },
  { noun: /\b(?:shipping |delivery |home |street )?address(?:es)?\b/gi, kinds: ['postal-code'] },
  {
    noun: /\b(?:order|ticket|invoice|account|reference|tracking) (?:numbers?|no\.?|ids?)|\bids?\b/gi,
    kinds: ['id'],
  },
  { noun: /\b(?:files?|paths?)\b/gi, kinds: ['file-path'] },
  { noun: /\b(?:dates?|deadlines?)\b/gi, kinds: ['date'] },
  { noun: /\b(?:urls?|links?)\b/gi, kinds: ['url'] },
]

/**
 * The phrases that make a noun a back-reference: "I gave you", "I told you", "I mentioned",
 * "as I said", "earlier", "above". Case-insensitive. The one table of back-reference phrases.
 */
const BACK_REFERENCE_PHRASE = /\b(?:I (?:gave|told) you|I (?:already )?mentioned|as I (?:said|mentioned)|earlier|above)\b/i

/** Cap of a back-reference's quoted sentence, in code points. */
const PHRASE_CHAR_CAP = 200

/** A sentence of a message that refers back to facts of some kinds. */
export interface BackReference {
  /** The kinds its nouns name (a sentence may name several: "the file and the date above"). */
  kinds: FactKind[]
  /** The sentence, trimmed, whitespace collapsed, cut to 200 code points; untrusted text. */
  sentence: string
}

/**
 * The back-references in `text`: each sentence (ended by `.`, `!`, `?` or a line break) holding a
 * back-reference phrase (`BACK_REFERENCE_PHRASE`) and a fact noun (`BACK_REFERENCE_NOUNS`), in
 * order. "Ship it to the postal code I gave you." → one, kinds `['postal-code']`. Pure.
 */
export function findBackReferences(text: string): BackReference[] {
  const out: BackReference[] = []
  for (const raw of text.split(/(?<=[.!?])\s+|\n/)) {
    if (!BACK_REFERENCE_PHRASE.test(raw)) continue
    let rest = raw
    const kinds: FactKind[] = []
    for (const { noun, kinds: named } of BACK_REFERENCE_NOUNS) {
      let hit = false
      rest = rest.replace(noun, (m) => {
        hit = true
        return ' '.repeat(m.length)
      })
      if (hit) for (const k of named) if (!kinds.includes(k)) kinds.push(k)
    }
    if (kinds.length > 0)
      out.push({ kinds, sentence: cutCodePoints(raw.trim().replace(/\s+/g, ' '), PHRASE_CHAR_CAP) })
  }
  return out
}

/** How a later message needed a lost fact. */
export interface NeededAfterLoss {
  /** The pass that took the fact out of the context, by stage and number. */
  stage: StageId
  pass: number
  /** The Before index of the turn end at which that pass fired (the fact was gone from there on). */
  atMessage: number
  /** The Before message that needed it: its id, index and role. */
  messageId: string
  messageIndex: number
  role: Role
  /** `verbatim`: the message holds the fact's text; `back-reference`: it refers to it by its kind's noun. */
  how: 'verbatim' | 'back-reference'
  /** For a back-reference: the sentence that refers back (see `BackReference.sentence`). */
  phrase?: string
}

/** A message that mentions a fact: its Before index, id, role, how and (back-reference) sentence. */
interface Mention {
  index: number
  id: string
  role: Role
  how: NeededAfterLoss['how']
  phrase?: string
}

/**
 * What `neededAfterLoss` reads of a transcript, built once per Before (`mentionsOf`): per fact
 * its verbatim mentions, the back-references by kind, which facts the user stated, and which
 * facts could be needed at all.
 */
export interface Mentions {
  /** Per fact (the fact index's order): messages holding it verbatim, by index ascending. */
  verbatim: Mention[][]
  /** Back-reference sentences of user and assistant messages, by index ascending. */
  backReferences: (Mention & { kinds: FactKind[] })[]
  /** Per fact: a user (ordinary user message) stated it. */
  userStated: boolean[]
  /**
   * The facts that can be needed after a loss in any run: a mention (verbatim, or a
   * back-reference naming its kind) comes after its first holder. Ascending.
   */
  candidates: number[]
}

/** A message that can mention a fact: not a summary (a summary carries it, nobody needs it there). */
const canMention = (m: Message) => !isSummaryMessage(m)

/**
 * The mentions of `facts` in `messages` (a transcript's Before), given `holders` (per fact: ids
 * of the before messages holding its text, in order — the fact index's). Linear in holders and
 * messages. Pure.
 */
export function mentionsOf(
  messages: readonly Message[],
  facts: readonly { kind: FactKind }[],
  holders: readonly (readonly string[])[],
): Mentions {
  const byId = new Map(messages.map((m) => [m.id, m]))
  const verbatim: Mention[][] = []
  const userStated: boolean[] = []
  const firstAt: number[] = []
  facts.forEach((_, i) => {
    const list: Mention[] = []
    let user = false
    let first = Infinity
    for (const id of holders[i] ?? []) {
      const m = byId.get(id)
      if (!m) continue
      first = Math.min(first, m.index)
      if (isOrdinaryUser(m)) user = true
      if (canMention(m)) list.push({ index: m.index, id: m.id, role: m.role, how: 'verbatim' })
    }
    list.sort((a, b) => a.index - b.index)
    verbatim.push(list)
    userStated.push(user)
    firstAt.push(first)
  })
  const backReferences: Mentions['backReferences'] = []
  for (const m of messages) {
    if (!canMention(m) || (m.role !== 'assistant' && !isOrdinaryUser(m))) continue
    for (const r of findBackReferences(contentText(m.content)))
      backReferences.push({ index: m.index, id: m.id, role: m.role, how: 'back-reference', phrase: r.sentence, kinds: r.kinds })
  }
  backReferences.sort((a, b) => a.index - b.index)
  // Per kind, the latest back-reference: a fact first held before it can be needed by it.
  const lastRef = new Map<FactKind, number>()
  for (const r of backReferences) for (const k of r.kinds) lastRef.set(k, Math.max(lastRef.get(k) ?? -Infinity, r.index))
  const candidates: number[] = []
  facts.forEach((f, i) => {
    const first = firstAt[i] as number
    const list = verbatim[i] as Mention[]
    const last = list[list.length - 1]
    if ((last && last.index > first) || (lastRef.get(f.kind) ?? -Infinity) > first) candidates.push(i)
  })
  return { verbatim, backReferences, userStated, candidates }
}

/** A pass as `neededAfterLoss` reads it: its stage, number and the turn end it fired at. */
export interface NeededPass {
  stage: StageId
  pass: number
  atMessage: number
}

/**
 * Which of the facts `which` (indices into the facts `mentions` was built for) were needed after
 * they were lost, and how: a fact is lost at the first pass position whose state in its
 * `passRuns(i)` (runs over `passes`, the facts table's) is `lost` — no holder the replay had
 * reached is verbatim and that pass's summary does not hold it — at `t`, that pass's
 * `atMessage`. It was needed when a message with index > t mentions it: holds its text
 * verbatim (user, assistant, or a tool result re-obtaining it), or refers back to its kind
 * (`findBackReferences`) — such a back-reference marks the facts of its kind lost before it,
 * only the user-stated ones when there are any. The earliest such mention is reported. Facts
 * lost without a pass (pruned, dropped) are not here: no turn took them out. Pure.
 */
export function neededAfterLoss(
  mentions: Mentions,
  facts: readonly { kind: FactKind }[],
  which: readonly number[],
  passes: readonly NeededPass[],
  passRuns: (i: number) => readonly PassRun[],
): Map<number, NeededAfterLoss> {
  // Per fact: the pass position at which it was first lost.
  const lostAt = new Map<number, number>()
  for (const i of which) {
    const r = passRuns(i).find((run) => run.state === 'lost')
    if (r) lostAt.set(i, r.from)
  }
  const at = (k: number) => (passes[k] as NeededPass).atMessage
  const first = new Map<number, Mention>()
  const offer = (i: number, m: Mention) => {
    const held = first.get(i)
    if (!held || m.index < held.index) first.set(i, m)
  }
  for (const [i, k] of lostAt) {
    const t = at(k)
    const m = (mentions.verbatim[i] ?? []).find((x) => x.index > t)
    if (m) offer(i, m)
  }
  if (mentions.backReferences.length > 0 && lostAt.size > 0) {
    const byKind = new Map<FactKind, number[]>()
    for (const i of lostAt.keys()) {
      const kind = (facts[i] as { kind: FactKind }).kind
      const list = byKind.get(kind) ?? []
      list.push(i)
      byKind.set(kind, list)
    }
    for (const ref of mentions.backReferences) {
      const lost = ref.kinds.flatMap((kind) => (byKind.get(kind) ?? []).filter((i) => at(lostAt.get(i) as number) < ref.index))
      const user = lost.filter((i) => mentions.userStated[i])
      for (const i of user.length > 0 ? user : lost) offer(i, ref)
    }
  }
  const out = new Map<number, NeededAfterLoss>()
  for (const i of [...first.keys()].sort((a, b) => a - b)) {
    const m = first.get(i) as Mention
    const p = passes[lostAt.get(i) as number] as NeededPass
    const needed: NeededAfterLoss = {
      stage: p.stage,
      pass: p.pass,
      atMessage: p.atMessage,
      messageId: m.id,
      messageIndex: m.index,
      role: m.role,
      how: m.how,
    }
    if (m.phrase !== undefined) needed.phrase = m.phrase
    out.set(i, needed)
  }
  return out
}

/**
 * The totals line of facts needed after a loss: "1 fact was needed after compaction removed it",
 * "3 facts were needed after compaction removed them" (counts with thousands separators). The
 * one wording of the facts table, the page's totals and the CLI.
 */
export function neededText(count: number): string {
  const n = count.toLocaleString('en-US')
  return count === 1
    ? `${n} fact was needed after compaction removed it`
    : `${n} facts were needed after compaction removed them`
}

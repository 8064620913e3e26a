/**
 * Which of many fixed strings occur in a text, in one pass over the text (Aho–Corasick over
 * UTF-16 code units). The facts table asks "which messages hold this fact?" for thousands of
 * facts; scanning every text once per fact was O(facts × text) — 39 s for 15,000 facts over
 * a 10 MB session. With this matcher every text is scanned once for all facts. Matching is
 * exact and case-sensitive, of whole values (`holdsFact`: a fact does not occur inside a longer
 * word or number).
 */

/** A letter, a digit or `_` (any script): what a fact's value may not run on into. */
const WORD_CHAR = /[\p{L}\p{N}_]/u

/** Whether the code point around UTF-16 offset `at` of `s` is a word character (false outside `s`). */
function wordCharAt(s: string, at: number, before: boolean): boolean {
  if (at < 0 || at >= s.length) return false
  const code = s.charCodeAt(at)
  // A surrogate half: read the whole code point it belongs to.
  if (before && code >= 0xdc00 && code <= 0xdfff && at > 0) return WORD_CHAR.test(s.slice(at - 1, at + 1))
  if (!before && code >= 0xd800 && code <= 0xdbff) return WORD_CHAR.test(s.slice(at, at + 2))
  return WORD_CHAR.test(s.charAt(at))
}

/**
 * Where `fact` first occurs in `text` as a whole value (UTF-16 offset), or -1: an occurrence counts
 * only when a fact that begins with a letter or digit does not follow one, and one that ends with a
 * letter or digit is not followed by one — port `3000` is not in `33000`, `ORD-5821` not in
 * `ORD-58213`, while `README.md` is in `README.md,` and `rates.py` in `src/rates.py`. The one test
 * of "a text holds a fact" (the matcher, the finder, the facts table). Pure.
 */
export function factIndexIn(text: string, fact: string, from = 0): number {
  if (fact === '') return from <= text.length ? from : -1
  const openStart = wordCharAt(fact, 0, false)
  const openEnd = wordCharAt(fact, fact.length - 1, true)
  for (let at = text.indexOf(fact, from); at !== -1; at = text.indexOf(fact, at + 1)) {
    if (openStart && wordCharAt(text, at - 1, true)) continue
    if (openEnd && wordCharAt(text, at + fact.length, false)) continue
    return at
  }
  return -1
}

/** Whether `text` holds `fact` as a whole value (`factIndexIn`). */
export function holdsFact(text: string, fact: string): boolean {
  return factIndexIn(text, fact) !== -1
}

/** A compiled set of strings. */
export interface StringSetMatcher {
  /** How many strings were compiled. */
  readonly size: number
  /**
   * Indices (into the compiled list) of the strings occurring in `text` as whole values,
   * ascending, each once. Equivalent to `patterns.flatMap((p, i) => (holdsFact(text, p) ? [i] :
   * []))`; an empty pattern occurs in every text. Work: O(text length + strings found), plus a
   * check of each string found inside a longer word.
   */
  find(text: string): number[]
}

/**
 * Strings longer than this (in UTF-16 code units) are not put in the automaton but tested with
 * `includes`: a goal can be a pasted page, and a trie path per code unit of it buys nothing.
 */
export const LONG_PATTERN = 512

/**
 * The branch transitions of the trie (see `createStringSetMatcher`) as an open-addressing hash
 * table over typed arrays, keyed (node, code unit): a Map per node would cost ~100 bytes each for
 * hundreds of thousands of nodes, and one Map keyed node * 65536 + unit boxes keys beyond 2^31.
 * Holds at most `capacity` entries.
 */
class BranchTable {
  private readonly mask: number
  private readonly keyNode: Int32Array
  private readonly keyUnit: Uint16Array
  private readonly value: Int32Array

  constructor(capacity: number) {
    let size = 16
    while (size < capacity * 2) size *= 2
    this.mask = size - 1
    this.keyNode = new Int32Array(size).fill(-1)
    this.keyUnit = new Uint16Array(size)
    this.value = new Int32Array(size)
  }

  private slot(node: number, unit: number): number {
    return (Math.imul(node, 0x9e3779b1) ^ Math.imul(unit + 1, 0x85ebca6b)) & this.mask
  }

  get(node: number, unit: number): number {
    for (let i = this.slot(node, unit); ; i = (i + 1) & this.mask) {
      const k = this.keyNode[i] as number
      if (k === -1) return -1
      if (k === node && this.keyUnit[i] === unit) return this.value[i] as number
    }
  }

  set(node: number, unit: number, child: number): void {
    let i = this.slot(node, unit)
    while (this.keyNode[i] !== -1) i = (i + 1) & this.mask
    this.keyNode[i] = node
    this.keyUnit[i] = unit
    this.value[i] = child
  }
}

/** `Trie.flags` bit: the node's chain child is node + 1, reached by `Trie.chainUnit`. */
const HAS_CHAIN = 1
/** `Trie.flags` bit: the node has children in the branch table. */
const HAS_BRANCH = 2

/**
 * The trie's transitions. Nodes are numbered in the order they are made, and the nodes one
 * pattern adds past the existing trie are made one after another, so every node but the first of
 * them is its parent's number + 1: that child (the node's "chain" child) is held as the code unit
 * leading to it, and only the first child a pattern hangs on an existing node goes to the branch
 * table — at most one per pattern. A trie of 1.25 M nodes for 56,000 facts takes ≈ 3 bytes a node
 * for its transitions instead of 40; the root's transitions are a dense table (most positions of a
 * text are at the root).
 */
class Trie {
  readonly root = new Int32Array(65536).fill(-1)
  chainUnit: Uint16Array
  flags: Uint8Array
  readonly branch: BranchTable

  constructor(nodeCapacity: number, branchCapacity: number) {
    this.chainUnit = new Uint16Array(nodeCapacity)
    this.flags = new Uint8Array(nodeCapacity)
    this.branch = new BranchTable(branchCapacity)
  }

  /** The child of `node` by `unit`, or -1. */
  get(node: number, unit: number): number {
    if (node === 0) return this.root[unit] as number
    const f = this.flags[node] as number
    if (f & HAS_CHAIN && this.chainUnit[node] === unit) return node + 1
    return f & HAS_BRANCH ? this.branch.get(node, unit) : -1
  }

  /** Makes `child` the child of `node` by `unit` (no such child yet). */
  set(node: number, unit: number, child: number): void {
    if (node === 0) {
      this.root[unit] = child
    } else if (child === node + 1 && !((this.flags[node] as number) & HAS_CHAIN)) {
      this.chainUnit[node] = unit
      this.flags[node] = (this.flags[node] as number) | HAS_CHAIN
    } else {
      this.branch.set(node, unit, child)
      this.flags[node] = (this.flags[node] as number) | HAS_BRANCH
    }
  }

  /** Drops the room reserved for nodes past `nodes` (the node count was bounded by the total length). */
  shrink(nodes: number): void {
    this.chainUnit = this.chainUnit.slice(0, nodes)
    this.flags = this.flags.slice(0, nodes)
  }
}

/**
 * Compiles `patterns` (duplicates allowed: each index is reported) into a matcher of whole values
 * (`holdsFact`), or of plain substrings with `substrings: true` (`includes`). Pure; the
 * matcher keeps no state between `find` calls except scratch buffers. Memory: ≈ 17 bytes per
 * trie node (at most one per code unit of the patterns, fewer where they share prefixes).
 */
export function createStringSetMatcher(patterns: readonly string[], options: { substrings?: boolean } = {}): StringSetMatcher {
  const whole = options.substrings !== true
  const long: number[] = []
  const empty: number[] = []
  let capacity = 1
  for (const p of patterns) if (p.length <= LONG_PATTERN) capacity += p.length
  const next = new Trie(capacity, patterns.length)
  // Per node: its parent, the code unit leading to it, its depth; node 0 is the root.
  const parent = new Int32Array(capacity)
  const unitOf = new Uint16Array(capacity)
  const depth = new Int32Array(capacity)
  // Patterns ending at a node, as a linked list: outHead[node] → outNext[pattern] → … → -1.
  let outHead = new Int32Array(capacity).fill(-1)
  const outNext = new Int32Array(patterns.length).fill(-1)
  let nodes = 1
  patterns.forEach((p, i) => {
    if (p.length === 0) return empty.push(i)
    if (p.length > LONG_PATTERN) return long.push(i)
    let node = 0
    for (let k = 0; k < p.length; k++) {
      const unit = p.charCodeAt(k)
      let child = next.get(node, unit)
      if (child === -1) {
        child = nodes++
        parent[child] = node
        unitOf[child] = unit
        depth[child] = k + 1
        next.set(node, unit, child)
      }
      node = child
    }
    outNext[i] = outHead[node] as number
    outHead[node] = i
  })
  next.shrink(nodes)
  outHead = outHead.slice(0, nodes)
  // Breadth-first order (a counting sort by depth) so a node's failure link is set after its
  // parent's and every shallower node's.
  let maxDepth = 0
  for (let n = 1; n < nodes; n++) maxDepth = Math.max(maxDepth, depth[n] as number)
  const start = new Int32Array(maxDepth + 2)
  for (let n = 1; n < nodes; n++) (start[(depth[n] as number) + 1] as number)++
  for (let d = 1; d < start.length; d++) start[d] = (start[d] as number) + (start[d - 1] as number)
  const order = new Int32Array(Math.max(nodes - 1, 0))
  for (let n = 1; n < nodes; n++) order[(start[depth[n] as number] as number)++] = n
  const fail = new Int32Array(nodes)
  // Nearest node on the failure chain (itself excluded) that ends a pattern, or -1.
  const dict = new Int32Array(nodes).fill(-1)
  for (const node of order) {
    const up = parent[node] as number
    if (up === 0) continue // depth 1: fails to the root
    const unit = unitOf[node] as number
    let f = fail[up] as number
    let target = next.get(f, unit)
    while (target === -1 && f !== 0) {
      f = fail[f] as number
      target = next.get(f, unit)
    }
    const fc = target === -1 ? 0 : target
    fail[node] = fc
    dict[node] = outHead[fc] !== -1 ? fc : (dict[fc] as number)
  }
  // Per-call "seen" stamps: a node's outputs (and its dictionary chain) are reported once per text.
  const seenNode = new Uint32Array(nodes)
  const seenPattern = new Uint32Array(patterns.length)
  let stamp = 0

  return {
    size: patterns.length,
    find(text) {
      stamp++
      if (stamp === 0xffffffff) {
        seenNode.fill(0)
        seenPattern.fill(0)
        stamp = 1
      }
      const found: number[] = [...empty]
      let node = 0
      for (let k = 0; k < text.length; k++) {
        const unit = text.charCodeAt(k)
        let target = next.get(node, unit)
        while (target === -1 && node !== 0) {
          node = fail[node] as number
          target = next.get(node, unit)
        }
        node = target === -1 ? 0 : target
        // Outputs of this node and its dictionary chain, until a node already reported.
        for (let n = node; n > 0 && seenNode[n] !== stamp; n = dict[n] as number) {
          seenNode[n] = stamp
          for (let i = outHead[n] as number; i !== -1; i = outNext[i] as number) {
            if (seenPattern[i] !== stamp) {
              seenPattern[i] = stamp
              found.push(i)
            }
          }
        }
      }
      // The automaton finds substrings: keep those that occur somewhere as a whole value.
      if (whole) {
        let kept = 0
        for (const i of found) {
          const p = patterns[i] as string
          if (p === '' || holdsFact(text, p)) found[kept++] = i
        }
        found.length = kept
      }
      for (const i of long) if (whole ? holdsFact(text, patterns[i] as string) : text.includes(patterns[i] as string)) found.push(i)
      return found.sort((a, b) => a - b)
    },
  }
}

/**
 * The one nesting limit: JSON inside a string is parsed only when it nests at most `MAX_NESTING`
 * levels and otherwise stays the text it was; the depth is read from the text without recursion.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonTextNestsTooDeep, MAX_NESTING, MAX_YAML_NESTING, parseJsonWithin } from './nesting'

/** `depth` nested arrays or objects around `inner`: `[[0]]`, `{"a":{"a":0}}`, alternating. */
function nested(depth: number, kind: 'array' | 'object' | 'mixed', inner = '0'): string {
  let open = ''
  let close = ''
  for (let i = 0; i < depth; i++) {
    const object = kind === 'object' || (kind === 'mixed' && i % 2 === 1)
    open += object ? '{"a":' : '['
    close = (object ? '}' : ']') + close
  }
  return open + inner + close
}

describe('the nesting limits', () => {
  it('is 1,000 levels, and a quarter of that for YAML read by the yaml package', () => {
    expect(MAX_NESTING).toBe(1000)
    expect(MAX_YAML_NESTING).toBe(250)
  })
})

describe('parseJsonWithin', () => {
  it('parses 10 and exactly 1,000 levels, keeps 1,001 and 100,000 levels as text', () => {
    expect(parseJsonWithin(nested(10, 'array'))).toEqual({ value: JSON.parse(nested(10, 'array')) })
    expect(parseJsonWithin(nested(1000, 'mixed'))?.value).toBeDefined()
    expect(parseJsonWithin(nested(1001, 'array'))).toBeUndefined()
    expect(parseJsonWithin(nested(100_000, 'object'))).toBeUndefined()
  })

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = `{"a":"${'['.repeat(5000)}\\"${'{'.repeat(5000)}","b":[1]}`
    expect(jsonTextNestsTooDeep(text)).toBe(false)
    expect(parseJsonWithin(text)?.value).toEqual({ a: `${'['.repeat(5000)}"${'{'.repeat(5000)}`, b: [1] })
  })

  it('is undefined for text that is not JSON', () => {
    expect(parseJsonWithin('not json')).toBeUndefined()
    expect(parseJsonWithin('[1,')).toBeUndefined()
    expect(parseJsonWithin('')).toBeUndefined()
  })

  it('property: never throws; a value iff valid JSON nesting at most MAX_NESTING levels', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(10, 999, 1000, 1001, 5000, 100_000),
        fc.constantFrom('array' as const, 'object' as const, 'mixed' as const),
        fc.constantFrom('0', '"x"', '"]]]}}}"', '[]', '{}'),
        (depth, kind, inner) => {
          const innerDepth = inner === '[]' || inner === '{}' ? 1 : 0
          const text = nested(depth, kind, inner)
          const parsed = parseJsonWithin(text)
          if (depth + innerDepth <= MAX_NESTING) {
            expect(parsed?.value).toBeDefined()
            // What parsed is safe to write back: the same text.
            expect(JSON.stringify(parsed?.value)).toBe(text)
          } else expect(parsed).toBeUndefined()
        },
      ),
      { numRuns: 60, seed: 31 },
    )
  })
})

import { sortFn_alphanumeric } from '@tanstack/react-table'
import { describe, expect, it } from 'vitest'
import { compareAlphanumeric } from '../../engine/fact-query'

// The Facts tab's headers sort as TanStack's `alphanumeric`; the worker and the page sort with the engine's.
describe('facts table text order', () => {
  it('orders texts as TanStack alphanumeric sort does', () => {
    const texts = ['ORD-10', 'ord-9', 'ORD-009', 'a2b', 'a10b', 'a', '', 'B', '1', '10', '01', 'x1y2', 'x1y10', 'ü', 'Z']
    const asRow = (v: string) => ({ getValue: () => v }) as unknown as Parameters<typeof sortFn_alphanumeric>[0]
    for (const a of texts)
      for (const b of texts) expect(Math.sign(compareAlphanumeric(a, b)), `${a} vs ${b}`).toBe(Math.sign(sortFn_alphanumeric(asRow(a), asRow(b), '')))
  })

})

/**
 * A Storage over a Map, for tests that stub `localStorage`: getItem (null when absent), setItem,
 * removeItem, and the Map itself (`map`) to read what was stored.
 */
export function memoryStorage(initial: Record<string, string> = {}) {
  const map = new Map(Object.entries(initial))
  return {
    map,
    getItem: (k: string) => map.get(k) ?? null,
    setItem: (k: string, v: string) => void map.set(k, v),
    removeItem: (k: string) => void map.delete(k),
  }
}

/**
 * The browser's localStorage, or null where there is none (Node, workers) or reading it throws
 * (storage disabled, privacy modes): callers then keep their value in memory for this page.
 */
export function localStore(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage
  } catch {
    return null
  }
}

/**
 * What a cache of committed reads keeps at most. An entry's size is the caller's estimate of what it holds
 * (its value and key, and a fixed part per entry).
 */
export interface CommittedReadLimits {
  readonly maxBytes: number
  readonly maxEntryBytes: number
  readonly maxEntries: number
}

/**
 * Values read while nothing was committed, each kept with the commit version (`CommitVersion`) read before
 * its statement ran: a commit in between moves the version, so a value is never newer-labelled than the
 * data it came from, and the first lookup after any commit empties the cache. Bounded in bytes and in
 * entries, so that a caller reading many records costs memory up to about `maxBytes`; a full cache starts
 * over.
 */
export const committedReads = <A>(limits: CommittedReadLimits) => {
  const entries = new Map<string, { readonly value: A; readonly size: number }>()
  let version: string | undefined
  let bytes = 0
  const startOver = (at: string | undefined) => {
    entries.clear()
    bytes = 0
    version = at
  }
  return {
    /** The value kept for `key` at commit version `at`, if any. */
    get: (key: string, at: string): A | undefined => {
      if (at !== version) {
        startOver(at)
        return undefined
      }
      return entries.get(key)?.value
    },
    /** Keeps `value`, read after the commit version was `at`, unless it is too large. */
    set: (key: string, at: string, value: A, size: number): void => {
      if (at !== version) startOver(at)
      bytes -= entries.get(key)?.size ?? 0
      entries.delete(key)
      if (size > limits.maxEntryBytes) return
      if (bytes + size > limits.maxBytes || entries.size >= limits.maxEntries) startOver(at)
      bytes += size
      entries.set(key, { value, size })
    }
  }
}

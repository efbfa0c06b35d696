import { Context } from "effect"

/**
 * Tells whether anything was committed to the database since a value was read: a driver that can answer
 * this cheaply and synchronously (SQLite's `PRAGMA data_version` on its reader connection) provides it,
 * and the repositories then keep what they read outside a transaction until the next commit. Without it
 * (PostgreSQL, where another instance may commit at any moment), every read runs its statement.
 */
export class CommitVersion extends Context.Service<
  CommitVersion,
  {
    /**
     * A value that differs from the one read before once any connection committed in between (this
     * process's included); undefined when it cannot be known, and then nothing is kept.
     */
    readonly current: () => number | undefined
  }
>()("@catalog-sync/adapter-sql/CommitVersion") {}

/**
 * What a cache of committed reads keeps at most. An entry's size is the caller's estimate of what it holds
 * (the text of the row it was built from and its key, and a fixed part per entry).
 */
export interface CommittedReadLimits {
  readonly maxBytes: number
  readonly maxEntryBytes: number
  readonly maxEntries: number
}

/**
 * Values read outside a transaction, each kept with the commit version read before its statement ran: a
 * commit in between moves the version, so a value is never newer-labelled than the data it came from,
 * and the first lookup after any commit empties the cache. Bounded in bytes and in entries, so that a caller
 * reading many records costs memory up to about `maxBytes`; a full cache starts over.
 */
export const committedReads = <A>(limits: CommittedReadLimits) => {
  const entries = new Map<string, { readonly value: A; readonly size: number }>()
  let version: number | undefined
  let bytes = 0
  const startOver = (at: number | undefined) => {
    entries.clear()
    bytes = 0
    version = at
  }
  return {
    /** The value kept for `key` at commit version `at`, if any. */
    get: (key: string, at: number): A | undefined => {
      if (at !== version) {
        startOver(at)
        return undefined
      }
      return entries.get(key)?.value
    },
    /** Keeps `value`, read after the commit version was `at`, unless it is too large. */
    set: (key: string, at: number, value: A, size: number): void => {
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

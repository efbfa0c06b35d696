import { CatalogRepository, ChangeLog, CommitVersion, StoredRecord } from "@catalog-sync/core"
import { Effect, Layer, Option } from "effect"
import { committedReads } from "./CommittedReads.js"
import { span } from "./internal/spans.js"

/**
 * Caching decorators for reads that clients repeat while nothing changes, each keeping what it read under
 * the `CommitVersion` it is given until that version moves. The composition root wires them, with a
 * version that moves on every commit and is unknown inside a transaction (SQLite's reader); without one
 * that can tell (PostgreSQL, where another instance may commit at any moment), it leaves them out.
 */

/**
 * About the length of `value` as JSON text, without writing it: strings and keys by their length, other
 * values by a few characters.
 */
const textSize = (value: unknown): number => {
  if (typeof value === "string") return value.length + 2
  if (value === null || typeof value !== "object") return 8
  let size = 2
  if (Array.isArray(value)) {
    for (const item of value) size += textSize(item) + 1
  } else {
    for (const [key, item] of Object.entries(value)) size += key.length + 4 + textSize(item)
  }
  return size
}

/** A record read by id with its external id, as `getMapped` answers it. */
interface MappedRecord {
  readonly record: StoredRecord.StoredRecord
  readonly externalId: string | null
}

/** What a kept record holds: its document and id lists (about twice their text) and a fixed part. */
const keptSize = (record: StoredRecord.StoredRecord, key: string) => {
  const text = StoredRecord.documentTextOf(record)
  const document = 2 * (text === undefined ? textSize(record.data) : text.length)
  return document + 80 * (record.index.categoryIds.length + record.index.componentIds.length) + key.length + 512
}

/** A list page's key: every part of the query, JSON-quoted so that no external id can pass for another part. */
const pageKey = (
  companyId: string,
  resource: string,
  query: CatalogRepository.ListQuery,
  connectionId: string
): string =>
  JSON.stringify([
    companyId,
    resource,
    connectionId,
    query.limit,
    query.cursor ?? null,
    query.externalId?.connectionId ?? null,
    query.externalId?.value ?? null,
    query.includeArchived ?? null,
    query.categoryId ?? null,
    query.collectionId ?? null,
    query.brandId ?? null,
    query.active ?? null
  ])

/**
 * A repository whose records read by id (`getMapped`: GET by id, what connectors and shops repeat most)
 * are answered from memory until the next commit, about 16 MB and 20,000 records at most, no record of
 * over ~32 KB of text; so are list pages (`listMapped`), about 16 MB and 2,000 pages at most, no page of
 * over ~128 KB of text. A record that is not there is read again each time. Everything else reads through.
 */
export const catalogLayer: Layer.Layer<
  CatalogRepository.CatalogRepository,
  never,
  CatalogRepository.CatalogRepository | CommitVersion.CommitVersion
> = Layer.effect(
  CatalogRepository.CatalogRepository,
  Effect.gen(function* () {
    const repository = yield* CatalogRepository.CatalogRepository
    const version = yield* CommitVersion.CommitVersion
    const kept = committedReads<MappedRecord>({ maxBytes: 16 << 20, maxEntryBytes: 64 << 10, maxEntries: 20_000 })
    const pages = committedReads<ReadonlyArray<MappedRecord>>({
      maxBytes: 16 << 20,
      maxEntryBytes: 256 << 10,
      maxEntries: 2_000
    })
    return CatalogRepository.CatalogRepository.of({
      ...repository,
      getMapped: (companyId, resource, id, connectionId) =>
        // The version is read before the record, so that a commit in between makes the next read run again.
        Effect.flatMap(version.current, (at) => {
          if (Option.isNone(at)) return repository.getMapped(companyId, resource, id, connectionId)
          const key = `${companyId}\u0000${resource}\u0000${id}\u0000${connectionId}`
          const hit = kept.get(key, at.value)
          if (hit !== undefined) {
            return Effect.succeed(Option.some(hit)).pipe(
              span("CatalogRepository.getMapped", { companyId, resource, id })
            )
          }
          return Effect.tap(repository.getMapped(companyId, resource, id, connectionId), (found) =>
            Effect.sync(() => {
              if (Option.isSome(found)) kept.set(key, at.value, found.value, keptSize(found.value.record, key))
            })
          )
        }),
      listMapped: (companyId, resource, query, connectionId) =>
        // As getMapped: the version is read before the page.
        Effect.flatMap(version.current, (at) => {
          if (Option.isNone(at)) return repository.listMapped(companyId, resource, query, connectionId)
          const key = pageKey(companyId, resource, query, connectionId)
          const hit = pages.get(key, at.value)
          if (hit !== undefined) {
            return Effect.succeed(hit).pipe(
              span("CatalogRepository.listMapped", { companyId, resource, limit: query.limit })
            )
          }
          return Effect.tap(repository.listMapped(companyId, resource, query, connectionId), (rows) =>
            Effect.sync(() => {
              let size = key.length
              for (const row of rows) size += keptSize(row.record, "") + (row.externalId?.length ?? 0)
              pages.set(key, at.value, rows, size)
            })
          )
        })
    })
  })
)

/** Companies whose head is kept at once; a full table starts over (it refills from the next polls). */
const maxHeads = 10_000

/**
 * A change log whose company heads are kept until the next commit: a feed poll with an up-to-date
 * cursor, what connectors repeat every few seconds, then runs no statement at all. Everything else reads
 * through.
 */
export const changeLogLayer: Layer.Layer<
  ChangeLog.ChangeLog,
  never,
  ChangeLog.ChangeLog | CommitVersion.CommitVersion
> = Layer.effect(
  ChangeLog.ChangeLog,
  Effect.gen(function* () {
    const log = yield* ChangeLog.ChangeLog
    const version = yield* CommitVersion.CommitVersion
    const heads = committedReads<number>({ maxBytes: maxHeads, maxEntryBytes: 1, maxEntries: maxHeads })
    return ChangeLog.ChangeLog.of({
      ...log,
      head: (companyId) =>
        // Read before the head, so that a commit in between makes the next poll read it again.
        Effect.flatMap(version.current, (at) => {
          if (Option.isNone(at)) return log.head(companyId)
          const known = heads.get(companyId, at.value)
          if (known !== undefined) return Effect.succeed(known)
          return Effect.tap(log.head(companyId), (head) => Effect.sync(() => heads.set(companyId, at.value, head, 1)))
        })
    })
  })
)

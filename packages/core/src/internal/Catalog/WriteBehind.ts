import { Data, Effect, Option } from "effect"
import type { ChangeEntry, ChangeLog } from "../../Changes/ChangeLog.js"
import type { CompanyId, ConnectionId, RecordId } from "../../Shared/Ids.js"
import type { ReferenceTarget } from "../../Resources/Resource.js"
import { MappingConflict, type PersistenceError } from "../../Shared/Errors.js"
import type { CatalogRepository } from "../../Catalog/CatalogRepository.js"
import { findAcrossOneByOne, type Mapping, type Mappings, type MappingScope } from "../../Catalog/Mappings.js"
import type { StoredRecord } from "../../Catalog/StoredRecord.js"

/** A port whose every call may also fail with `E`. */
export type FailingAlso<Port, E> = {
  readonly [K in keyof Port]: Port[K] extends (...args: infer Args) => Effect.Effect<infer A, infer Failure, infer R>
    ? (...args: Args) => Effect.Effect<A, Failure | E, R>
    : Port[K] extends Effect.Effect<infer A, infer Failure, infer R>
      ? Effect.Effect<A, Failure | E, R>
      : Port[K]
}

/**
 * The ports a catalog write goes through: the services' own, or a write-behind's, whose calls may also
 * fail with `E` (`WriteBehindAbandoned`).
 */
export interface WritePorts<E = never> {
  readonly repository: FailingAlso<CatalogRepository["Service"], E>
  readonly mappings: FailingAlso<Mappings["Service"], E>
  readonly changeLog: FailingAlso<ChangeLog["Service"], E>
}

/**
 * The write-behind could not keep its promise: a buffered write met a concurrent writer's row when
 * flushed, or a failing record had written something. Not an error of the records themselves: no
 * record-level handler takes it, so it rolls the batch's transaction back and its owner writes the batch
 * record by record. It never leaves the import job (the job kind's errors do not include it).
 */
export class WriteBehindAbandoned extends Data.TaggedError("WriteBehindAbandoned")<{ readonly message: string }> {}

/** A concurrent writer's mapping met when flushing: the batch cannot be written as buffered. */
const abandoned = (conflict: MappingConflict) => new WriteBehindAbandoned({ message: conflict.message })

/** A key the write-behind may answer mapping lookups for: one resource's external id in the batch's connection. */
export interface MappingKey {
  readonly resource: ReferenceTarget
  readonly externalId: string
}

export interface WriteBehind {
  /** The ports to write through: creates are buffered, everything else first writes what is buffered. */
  readonly ports: WritePorts<WriteBehindAbandoned>
  /** Loads these mappings (one lookup per resource), so that finding them later needs no statement. */
  readonly prefetch: (keys: ReadonlyArray<MappingKey>) => Effect.Effect<void, PersistenceError | WriteBehindAbandoned>
  /** Writes what is buffered, in multi-row statements. */
  readonly flush: Effect.Effect<void, PersistenceError | WriteBehindAbandoned>
  /** How many writes went through the ports so far, buffered or not: tells whether a record wrote. */
  readonly writes: () => number
}

/**
 * A unit of work for many upserts of one connection in one transaction (an import batch). New records,
 * their mappings and change entries are kept in memory and written together, in one statement per table
 * (`flush`); any other write or read first flushes, so every read sees every earlier write, as it would
 * one by one. Mapping lookups of prefetched keys are answered from memory, kept current by the buffered
 * mappings (nothing else writes mappings inside the transaction), so a batch of new records reads and
 * writes in a handful of statements whatever its size. The caller owns the transaction: a conflict when
 * flushing (a concurrent writer took an external id first) abandons it (`WriteBehindAbandoned`).
 */
export const make = (
  ports: WritePorts,
  connection: { readonly companyId: CompanyId; readonly connectionId: ConnectionId }
): WriteBehind => {
  let pendingMappings: Array<Mapping> = []
  let pendingRecords: Array<StoredRecord> = []
  let pendingChanges: Array<ChangeEntry> = []
  let writes = 0
  /** resource -> external id -> record id, or null when known to be unmapped. */
  const known = new Map<string, Map<string, RecordId | null>>()

  const inConnection = (scope: MappingScope) =>
    scope.companyId === connection.companyId && scope.connectionId === connection.connectionId

  const flush: Effect.Effect<void, PersistenceError | WriteBehindAbandoned> = Effect.suspend(() => {
    if (pendingMappings.length === 0 && pendingRecords.length === 0 && pendingChanges.length === 0) return Effect.void
    const mappings = pendingMappings
    const records = pendingRecords
    const changes = pendingChanges
    pendingMappings = []
    pendingRecords = []
    pendingChanges = []
    const writeMappings =
      mappings.length === 0
        ? Effect.void
        : Effect.catchTag(ports.mappings.insertMany(mappings), "MappingConflict", (conflict) =>
            Effect.fail(abandoned(conflict))
          )
    const writeRecords = records.length === 0 ? Effect.void : ports.repository.insertMany(records)
    const writeChanges = changes.length === 0 ? Effect.void : ports.changeLog.appendMany(changes)
    return Effect.all([writeMappings, writeRecords, writeChanges], { discard: true })
  })

  /** A port call that reads or writes directly: what is buffered goes first. */
  const after =
    <Args extends ReadonlyArray<unknown>, A, E>(call: (...args: Args) => Effect.Effect<A, E>) =>
    (...args: Args) =>
      Effect.andThen(
        flush,
        Effect.suspend(() => call(...args))
      )

  const countWrite = <A, E>(effect: Effect.Effect<A, E>) =>
    Effect.suspend(() => {
      writes++
      return effect
    })

  const knownOf = (scope: MappingScope, externalId: string): RecordId | null | undefined =>
    inConnection(scope) ? known.get(scope.resource)?.get(externalId) : undefined

  const mappings: WritePorts<WriteBehindAbandoned>["mappings"] = {
    find: (scope, externalId) => {
      const hit = knownOf(scope, externalId)
      return hit === undefined
        ? after(ports.mappings.find)(scope, externalId)
        : Effect.succeed(Option.fromNullishOr(hit))
    },
    findMany: (scope, externalIds) => {
      const found = new Map<string, RecordId>()
      for (const externalId of externalIds) {
        const hit = knownOf(scope, externalId)
        if (hit === undefined) return after(ports.mappings.findMany)(scope, externalIds)
        if (hit !== null) found.set(externalId, hit)
      }
      return Effect.succeed(found)
    },
    // Answered from what is prefetched, as `findMany` is: one lookup after another costs nothing more here.
    findAcross: (lookups) => findAcrossOneByOne(mappings.findMany)(lookups),
    externalIdsOf: after(ports.mappings.externalIdsOf),
    insert: (mapping) =>
      Effect.suspend(() => {
        const hit = knownOf(mapping, mapping.externalId)
        if (hit === undefined) return Effect.andThen(flush, countWrite(ports.mappings.insert(mapping)))
        if (hit !== null) {
          return Effect.fail(
            new MappingConflict({
              reason: "external_id_taken",
              message: `external_id ${JSON.stringify(mapping.externalId)} is already mapped`
            })
          )
        }
        writes++
        known.get(mapping.resource)!.set(mapping.externalId, mapping.recordId)
        pendingMappings.push(mapping)
        return Effect.void
      }),
    insertMany: (many) => Effect.andThen(flush, countWrite(ports.mappings.insertMany(many)))
  }

  const repository: WritePorts<WriteBehindAbandoned>["repository"] = {
    get: after(ports.repository.get),
    getMapped: after(ports.repository.getMapped),
    getMany: after(ports.repository.getMany),
    existing: after(ports.repository.existing),
    list: after(ports.repository.list),
    listMapped: after(ports.repository.listMapped),
    children: after(ports.repository.children),
    bundlesContaining: after(ports.repository.bundlesContaining),
    lockPricing: after(ports.repository.lockPricing),
    ancestors: after(ports.repository.ancestors),
    insert: (record) =>
      Effect.sync(() => {
        writes++
        pendingRecords.push(record)
      }),
    insertMany: (records) => Effect.andThen(flush, countWrite(ports.repository.insertMany(records))),
    update: (record, expectedRevision, previous) =>
      Effect.andThen(flush, countWrite(ports.repository.update(record, expectedRevision, previous)))
  }

  const changeLog: WritePorts<WriteBehindAbandoned>["changeLog"] = {
    append: (entry) =>
      Effect.sync(() => {
        writes++
        pendingChanges.push(entry)
      }),
    appendMany: (entries) => Effect.andThen(flush, countWrite(ports.changeLog.appendMany(entries))),
    head: after(ports.changeLog.head),
    read: after(ports.changeLog.read),
    fromGlobalPosition: after(ports.changeLog.fromGlobalPosition)
  }

  const prefetch = (keys: ReadonlyArray<MappingKey>) =>
    Effect.gen(function* () {
      const byResource = new Map<ReferenceTarget, Set<string>>()
      for (const key of keys) {
        if (known.get(key.resource)?.has(key.externalId) === true) continue
        const wanted = byResource.get(key.resource) ?? new Set<string>()
        wanted.add(key.externalId)
        byResource.set(key.resource, wanted)
      }
      if (byResource.size === 0) return
      yield* flush
      for (const [resource, externalIds] of byResource) {
        const found = yield* ports.mappings.findMany({ ...connection, resource }, Array.from(externalIds))
        const entries = known.get(resource) ?? new Map<string, RecordId | null>()
        for (const externalId of externalIds) entries.set(externalId, found.get(externalId) ?? null)
        known.set(resource, entries)
      }
    })

  return { ports: { repository, mappings, changeLog }, prefetch, flush, writes: () => writes }
}

import { Context, Effect, FiberRef, Layer, Option } from "effect"
import { MappingConflict, RevisionConflict } from "../Shared/Errors.js"
import { CatalogRepository, type ListQuery } from "../Catalog/CatalogRepository.js"
import { type Mapping, Mappings, type MappingScope } from "../Catalog/Mappings.js"
import type { StoredRecord } from "../Catalog/StoredRecord.js"
import type { ResourceName } from "../Resources/Resource.js"
import { type ChangeEntry, ChangeLog, type LoggedChange, maskOf, partsOf } from "../Changes/ChangeLog.js"
import type { CompanyId, ConnectionId, RecordId } from "../Shared/Ids.js"
import { Transactor } from "../Shared/Transactor.js"
import { AccountConflict, Accounts, type Location, type LocationAssignment } from "../Auth/Accounts.js"
import type { ApiKey } from "../Auth/ApiKey.js"
import type { Company, Connection } from "../Auth/Company.js"
import {
  type Claim,
  type IdempotencyScope,
  IdempotencyStore,
  type StoredResponse
} from "../Idempotency/IdempotencyStore.js"

interface State {
  records: Map<string, StoredRecord>
  mappings: Map<string, Mapping>
  changes: Array<ChangeEntry>
}

const recordKey = (companyId: string, resource: string, id: string) => `${companyId}|${resource}|${id}`
const scopeKey = (scope: MappingScope) => `${scope.companyId}|${scope.connectionId}|${scope.resource}`
const byExternal = (scope: MappingScope, externalId: string) => `${scopeKey(scope)}|e|${externalId}`
const byRecord = (scope: MappingScope, recordId: string) => `${scopeKey(scope)}|r|${recordId}`

/**
 * In-memory implementations of the persistence ports, sharing one state: for domain tests without a
 * database and as the reference the conformance suite holds the SQL adapters to. Transactions are
 * serialised and restore a snapshot on failure.
 */
const byId = (a: { readonly id: string }, b: { readonly id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

export const make = Effect.gen(function* () {
  const state: State = { records: new Map(), mappings: new Map(), changes: [] }
  const lock = yield* Effect.makeSemaphore(1)
  const inTransaction = FiberRef.unsafeMake(false)

  // A failure restores the state from before the (possibly nested) transaction: nested ones act as
  // savepoints, as sql.withTransaction makes them, so a batch can roll back one record's write only.
  const restoringOnFailure = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.suspend(() => {
      const snapshot: State = {
        records: new Map(state.records),
        mappings: new Map(state.mappings),
        changes: [...state.changes]
      }
      return effect.pipe(
        Effect.onExit((exit) =>
          Effect.sync(() => {
            if (exit._tag === "Failure") Object.assign(state, snapshot)
          })
        )
      )
    })

  const withTransaction: Transactor["Type"]["withTransaction"] = (effect) =>
    Effect.flatMap(FiberRef.get(inTransaction), (nested) =>
      nested
        ? restoringOnFailure(effect)
        : lock.withPermits(1)(restoringOnFailure(Effect.locally(effect, inTransaction, true)))
    )
  const transactor = Transactor.of({
    withTransaction,
    atomically: (effect) =>
      Effect.flatMap(FiberRef.get(inTransaction), (nested) => (nested ? effect : withTransaction(effect)))
  })

  const visible = (companyId: string, resource: string, id: string) =>
    state.records.get(recordKey(companyId, resource, id))

  const insertRecord = (record: StoredRecord) => {
    const key = recordKey(record.companyId, record.resource, record.id)
    if (state.records.has(key)) throw new Error(`duplicate record ${key}`)
    state.records.set(key, record)
  }

  /** The external id `connectionId`'s mapping gives a record, null without one (getMapped, listMapped). */
  const mappedExternalId = (
    companyId: CompanyId,
    connectionId: ConnectionId,
    resource: ResourceName,
    record: StoredRecord
  ): string | null =>
    state.mappings.get(byRecord({ companyId, connectionId, resource } as MappingScope, record.id))?.externalId ?? null

  const listed = (companyId: CompanyId, resource: ResourceName, query: ListQuery): ReadonlyArray<StoredRecord> => {
    const mapped =
      query.externalId === undefined
        ? undefined
        : state.mappings.get(
            byExternal(
              { companyId: companyId, connectionId: query.externalId.connectionId, resource } as MappingScope,
              query.externalId.value
            )
          )?.recordId
    return Array.from(state.records.values())
      .filter(
        (r) =>
          r.companyId === companyId &&
          r.resource === resource &&
          (query.includeArchived === true || r.archivedAt === null) &&
          (query.cursor === undefined || r.id > query.cursor) &&
          (query.externalId === undefined || r.id === mapped) &&
          (query.categoryId === undefined || r.index.categoryIds.includes(query.categoryId)) &&
          (query.collectionId === undefined || r.index.collectionId === query.collectionId) &&
          (query.brandId === undefined || r.index.brandId === query.brandId) &&
          (query.active === undefined || r.index.active === query.active)
      )
      .sort(byId)
      .slice(0, query.limit)
  }

  const repository = CatalogRepository.of({
    get: (companyId, resource, id) => Effect.sync(() => Option.fromNullable(visible(companyId, resource, id))),
    getMapped: (companyId, resource, id, connectionId) =>
      Effect.sync(() =>
        Option.map(Option.fromNullable(visible(companyId, resource, id)), (record) => ({
          record,
          externalId: mappedExternalId(companyId, connectionId, resource, record)
        }))
      ),
    getMany: (companyId, resource, ids) =>
      Effect.sync(() => Array.from(new Set(ids)).flatMap((id) => visible(companyId, resource, id) ?? [])),
    existing: (companyId, target, ids) =>
      Effect.sync(() => new Set(ids.filter((id) => visible(companyId, target, id) !== undefined))),
    insert: (record) => Effect.sync(() => insertRecord(record)),
    insertMany: (records) => Effect.sync(() => records.forEach(insertRecord)),
    update: (record, expectedRevision) =>
      Effect.suspend(() => {
        const key = recordKey(record.companyId, record.resource, record.id)
        const current = state.records.get(key)
        if (current === undefined) return Effect.dieMessage(`update of a missing record ${key}`)
        if (current.revision !== expectedRevision) {
          return Effect.fail(
            new RevisionConflict({
              message: `record ${record.id} is at revision ${current.revision}, not ${expectedRevision}`,
              current_revision: current.revision,
              expected_revision: expectedRevision
            })
          )
        }
        state.records.set(key, record)
        return Effect.void
      }),
    list: (companyId, resource, query) => Effect.sync(() => listed(companyId, resource, query)),
    listMapped: (companyId, resource, query, connectionId) =>
      Effect.sync(() =>
        listed(companyId, resource, query).map((record) => ({
          record,
          externalId: mappedExternalId(companyId, connectionId, resource, record)
        }))
      ),
    children: (companyId, resource, parentIds) =>
      Effect.sync(() =>
        Array.from(state.records.values())
          .filter(
            (r) =>
              r.companyId === companyId &&
              r.resource === resource &&
              r.index.parentId !== null &&
              parentIds.includes(r.index.parentId)
          )
          .sort(byId)
      ),
    bundlesContaining: (companyId, productId) =>
      Effect.sync(() =>
        Array.from(state.records.values())
          .filter(
            (r) =>
              r.companyId === companyId &&
              r.resource === "products" &&
              r.archivedAt === null &&
              r.index.componentIds.includes(productId)
          )
          .sort(byId)
          .map((r) => r.id)
      ),
    // Transactions here are serialised by the transactor's lock already.
    lockPricing: () => Effect.void,
    ancestors: (companyId, categoryId, maxDepth) =>
      Effect.sync(() => {
        const chain: Array<RecordId> = []
        let next = visible(companyId, "categories", categoryId)?.index.parentId ?? null
        while (next !== null && chain.length < maxDepth) {
          chain.push(next)
          next = visible(companyId, "categories", next)?.index.parentId ?? null
        }
        return chain
      })
  })

  const insertMapping: Mappings["Type"]["insert"] = (mapping) =>
    Effect.suspend(() => {
      if (state.mappings.has(byExternal(mapping, mapping.externalId))) {
        return Effect.fail(
          new MappingConflict({
            reason: "external_id_taken",
            message: `external_id ${JSON.stringify(mapping.externalId)} is already mapped`
          })
        )
      }
      if (state.mappings.has(byRecord(mapping, mapping.recordId))) {
        return Effect.fail(
          new MappingConflict({
            reason: "record_already_mapped",
            message: `record ${mapping.recordId} is already mapped`
          })
        )
      }
      state.mappings.set(byExternal(mapping, mapping.externalId), mapping)
      state.mappings.set(byRecord(mapping, mapping.recordId), mapping)
      return Effect.void
    })

  const mappings = Mappings.of({
    find: (scope, externalId) =>
      Effect.sync(() => Option.fromNullable(state.mappings.get(byExternal(scope, externalId))?.recordId)),
    findMany: (scope, externalIds) =>
      Effect.sync(() => {
        const out = new Map<string, RecordId>()
        for (const externalId of externalIds) {
          const found = state.mappings.get(byExternal(scope, externalId))
          if (found !== undefined) out.set(externalId, found.recordId)
        }
        return out
      }),
    externalIdsOf: (scope, recordIds) =>
      Effect.sync(() => {
        const out = new Map<RecordId, string>()
        for (const recordId of recordIds) {
          const found = state.mappings.get(byRecord(scope, recordId))
          if (found !== undefined) out.set(recordId, found.externalId)
        }
        return out
      }),
    insert: insertMapping,
    insertMany: (mappings) => Effect.forEach(mappings, insertMapping, { discard: true })
  })

  // A change's position is its rank among its company's changes in the log (the log is serialised by the
  // transaction lock). No change here was numbered by a global sequence: the log never outlives the process.
  const changeLog = ChangeLog.of({
    append: (entry) => Effect.sync(() => void state.changes.push(entry)),
    appendMany: (entries) => Effect.sync(() => void state.changes.push(...entries)),
    head: (companyId) => Effect.sync(() => state.changes.filter((entry) => entry.companyId === companyId).length),
    read: (query) =>
      Effect.sync(() => {
        const out: Array<LoggedChange> = []
        let position = 0
        for (const entry of state.changes) {
          if (entry.companyId !== query.companyId) continue
          position++
          if (position <= query.after) continue
          if (position > query.upTo || out.length >= query.limit) break
          if ((maskOf(partsOf(entry)) & query.visibleMask) === 0) continue
          if (query.resources !== undefined && !query.resources.includes(entry.resource)) continue
          const mapping = state.mappings.get(
            byRecord(
              {
                companyId: entry.companyId,
                connectionId: query.connectionId,
                resource: entry.resource
              } as MappingScope,
              entry.recordId
            )
          )
          const { parts: _parts, ...rest } = entry
          out.push({ ...rest, position, externalId: mapping?.externalId ?? null })
        }
        return out
      }),
    fromGlobalPosition: () => Effect.succeed(0)
  })

  return {
    repository,
    mappings,
    transactor,
    changeLog,
    changes: () => state.changes as ReadonlyArray<ChangeEntry>
  } as const
})

/** Idempotency records in memory, with the same claim rules as the SQL store. */
export const idempotencyLayer = Layer.sync(IdempotencyStore, () => {
  const rows = new Map<
    string,
    {
      fingerprint: string
      state: "running" | "completed"
      leaseUntil: number
      createdAt: number
      response: StoredResponse | null
    }
  >()
  const keyOf = (scope: IdempotencyScope, key: string) => `${scope.companyId}|${scope.connectionId}|${key}`
  return IdempotencyStore.of({
    claim: (request) =>
      Effect.sync((): Claim => {
        const id = keyOf(request.scope, request.key)
        const row = rows.get(id)
        const fresh = () => {
          rows.set(id, {
            fingerprint: request.fingerprint,
            state: "running",
            leaseUntil: request.nowMillis + request.leaseMillis,
            createdAt: request.nowMillis,
            response: null
          })
          return { _tag: "Started", token: request.nowMillis + request.leaseMillis } as const
        }
        if (row === undefined || row.createdAt + request.retentionMillis <= request.nowMillis) return fresh()
        if (row.fingerprint !== request.fingerprint) return { _tag: "Mismatch" }
        if (row.state === "completed" && row.response !== null) return { _tag: "Replay", response: row.response }
        if (row.leaseUntil > request.nowMillis) return { _tag: "InProgress" }
        return fresh()
      }),
    // The lease end a claim wrote is its token: a takeover writes a later one.
    complete: (scope, key, token, response) =>
      Effect.sync(() => {
        const row = rows.get(keyOf(scope, key))
        if (row === undefined || row.state !== "running" || row.leaseUntil !== token) return false
        rows.set(keyOf(scope, key), { ...row, state: "completed", response })
        return true
      }),
    release: (scope, key, token) =>
      Effect.sync(() => {
        // Only this running claim: a completed key must keep replaying its response.
        const row = rows.get(keyOf(scope, key))
        if (row?.state === "running" && row.leaseUntil === token) rows.delete(keyOf(scope, key))
      }),
    purge: (olderThanMillis) =>
      Effect.sync(() => {
        let removed = 0
        for (const [id, row] of rows) {
          const abandoned = row.state === "running" && row.leaseUntil < olderThanMillis
          if (((row.state === "completed" && row.createdAt < olderThanMillis) || abandoned) && rows.delete(id))
            removed++
        }
        return removed
      }),
    releaseAll: Effect.sync(() => {
      let released = 0
      for (const [id, row] of rows) if (row.state === "running" && rows.delete(id)) released++
      return released
    })
  })
})

/** Account data in memory. */
export const accountsLayer = Layer.sync(Accounts, () => {
  const companies = new Map<string, Company>()
  const connections = new Map<string, Connection>()
  const keys = new Map<string, { key: ApiKey; secretHash: string }>()
  const locations = new Map<string, Location>()
  const assignments = new Map<string, LocationAssignment>()
  return Accounts.of({
    findKey: (keyId, domain) =>
      Effect.sync(() => {
        const found = keys.get(keyId)
        const connection = found && connections.get(found.key.connection_id)
        const company = found && companies.get(found.key.company_id)
        if (!(found && connection && company)) return Option.none()
        const domainOwner =
          domain === undefined
            ? Option.none<CompanyId>()
            : Option.fromNullable(Array.from(companies.values()).find((c) => c.domains.includes(domain))?.id)
        return Option.some({ ...found, connection, company, domainOwner })
      }),
    companyOfDomain: (domain) =>
      Effect.sync(() =>
        Option.fromNullable(Array.from(companies.values()).find((c) => c.domains.includes(domain))?.id)
      ),
    getCompany: (id) => Effect.sync(() => Option.fromNullable(companies.get(id))),
    listCompanies: Effect.sync(() => Array.from(companies.values())),
    saveCompany: (company) =>
      Effect.suspend(() => {
        for (const other of companies.values()) {
          if (other.id === company.id) continue
          if (other.storage_slug === company.storage_slug) {
            return Effect.fail(
              new AccountConflict({ field: "storage_slug", message: `storage_slug ${company.storage_slug} is taken` })
            )
          }
          const shared = other.domains.find((d) => company.domains.includes(d))
          if (shared !== undefined)
            return Effect.fail(
              new AccountConflict({ field: "domains", message: `domain ${shared} belongs to another company` })
            )
        }
        companies.set(company.id, company)
        return Effect.void
      }),
    getConnection: (id) => Effect.sync(() => Option.fromNullable(connections.get(id))),
    listConnections: (companyId) =>
      Effect.sync(() => Array.from(connections.values()).filter((c) => c.company_id === companyId)),
    saveConnection: (connection) => Effect.sync(() => void connections.set(connection.id, connection)),
    insertKey: (key, secretHash) => Effect.sync(() => void keys.set(key.id, { key, secretHash })),
    listKeys: (companyId) =>
      Effect.sync(() => Array.from(keys.values(), (k) => k.key).filter((k) => k.company_id === companyId)),
    revokeKey: (keyId, at) =>
      Effect.sync(() => {
        const found = keys.get(keyId)
        if (found === undefined) return false
        if (found.key.revoked_at === null) keys.set(keyId, { ...found, key: { ...found.key, revoked_at: at } })
        return true
      }),
    saveLocation: (location) => Effect.sync(() => void locations.set(location.id, location)),
    listLocations: (companyId) =>
      Effect.sync(() => Array.from(locations.values()).filter((l) => l.company_id === companyId)),
    assignLocation: (assignment) =>
      Effect.sync(() => void assignments.set(`${assignment.connection_id}|${assignment.location_id}`, assignment)),
    assignments: (connectionId) =>
      Effect.sync(() => Array.from(assignments.values()).filter((a) => a.connection_id === connectionId))
  })
})

/** Read access to what the in-memory ports hold, for assertions. */
export class Inspect extends Context.Tag("@catalog-sync/core/memory/InMemory/Inspect")<
  Inspect,
  { readonly changes: () => ReadonlyArray<ChangeEntry> }
>() {}

/** All persistence ports, in memory, sharing one state, plus Inspect. */
export const layer: Layer.Layer<CatalogRepository | Mappings | Transactor | ChangeLog | Inspect> = Layer.effectContext(
  Effect.map(make, (ports) =>
    Context.make(CatalogRepository, ports.repository).pipe(
      Context.add(Mappings, ports.mappings),
      Context.add(Transactor, ports.transactor),
      Context.add(ChangeLog, ports.changeLog),
      Context.add(Inspect, { changes: ports.changes })
    )
  )
)

import { Effect, Option } from "effect"
import { CatalogRepository, type ListQuery } from "../Catalog/CatalogRepository.js"
import type { StoredRecord } from "../Catalog/StoredRecord.js"
import type { ResourceName } from "../Resources/Resource.js"
import { RevisionConflict } from "../Shared/Errors.js"
import type { CompanyId, ConnectionId, RecordId } from "../Shared/Ids.js"
import { byId, byRecord, byExternal, recordKey, type State } from "./InMemoryState.js"

/** The catalog records in memory, over the shared state. */
export const makeRepository = (state: State): CatalogRepository["Service"] => {
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
  ): string | null => state.mappings.get(byRecord({ companyId, connectionId, resource }, record.id))?.externalId ?? null

  const listed = (companyId: CompanyId, resource: ResourceName, query: ListQuery): ReadonlyArray<StoredRecord> => {
    const mapped =
      query.externalId === undefined
        ? undefined
        : state.mappings.get(
            byExternal(
              { companyId: companyId, connectionId: query.externalId.connectionId, resource },
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

  return CatalogRepository.of({
    get: (companyId, resource, id) => Effect.sync(() => Option.fromNullishOr(visible(companyId, resource, id))),
    getMapped: (companyId, resource, id, connectionId) =>
      Effect.sync(() =>
        Option.map(Option.fromNullishOr(visible(companyId, resource, id)), (record) => ({
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
        if (current === undefined) return Effect.die(new Error(`update of a missing record ${key}`))
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
}

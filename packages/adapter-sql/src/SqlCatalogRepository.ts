import { Errors, CatalogRepository, Ids, Resource, type StoredRecord } from "@catalog-sync/core"
import { SqlClient, type SqlError, type Statement, SqlSchema } from "effect/sql"
import { Array as Arr, type Context, Effect, Layer, Option, Schema } from "effect"
import { linkWrites } from "./internal/catalog/links.js"
import { ancestorsStatement, type ListParams, listStatement } from "./internal/catalog/statements.js"
import { refineErrors } from "./internal/errors.js"
import { inList } from "./internal/inList.js"
import { atomically } from "./internal/transaction.js"
import { chunks, type RecordRow, recordColumns, recordRowOf, ReferenceTarget, storedRecordOf } from "./internal/rows.js"
import { span } from "./internal/spans.js"

export { ancestorsStatement, type ListParams, listStatement } from "./internal/catalog/statements.js"

const revisionConflict = (id: string, current: number, expected: number) =>
  new Errors.RevisionConflict({
    message: `record ${id} is at revision ${current}, not ${expected}`,
    current_revision: current,
    expected_revision: expected
  })

/**
 * CatalogRepository over any `SqlClient`: its reads, the rule checks' locks and the compare-and-set
 * update. A product's link rows are written by `internal/catalog/links.ts`, the list and ancestor
 * statements live in `internal/catalog/statements.ts`; reads kept until the next commit are a decorator of
 * their own (`KeptReads`), which the composition root adds.
 */
export const make: Effect.Effect<
  Context.Service.Shape<typeof CatalogRepository.CatalogRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(recordColumns)
  const { insertNew, insertWithLinks, replaceLinks } = linkWrites(sql)

  type MappedRecord = { readonly record: StoredRecord.StoredRecord; readonly externalId: string | null }

  // Reads map their rows with `storedRecordOf` (our own writes, no schema decode); parameters are typed ids.
  type Row = Readonly<Record<string, unknown>>

  const findRecord = (companyId: string, resource: string, id: string) =>
    sql<Row>`SELECT ${columns} FROM catalog_records r WHERE r.company_id = ${companyId} AND r.resource = ${resource} AND r.id = ${id}`

  // The mapping's index on (company, connection, resource, record) makes the join one more key lookup.
  const findMappedRecord = (companyId: string, resource: string, id: string, connectionId: string) =>
    sql<Row>`SELECT ${columns}, m.external_id AS mapped_external_id FROM catalog_records r
          LEFT JOIN mappings m ON m.company_id = r.company_id AND m.connection_id = ${connectionId} AND m.resource = r.resource AND m.record_id = r.id
          WHERE r.company_id = ${companyId} AND r.resource = ${resource} AND r.id = ${id}`

  const readMapped = (companyId: string, resource: string, id: string, connectionId: string) =>
    findMappedRecord(companyId, resource, id, connectionId).pipe(
      Effect.map((rows) =>
        Option.map(Arr.head(rows), (row): MappedRecord => ({
          record: storedRecordOf(row),
          externalId: row.mapped_external_id as string | null
        }))
      ),
      refineErrors
    )

  const findRecords = (companyId: string, resource: string, ids: ReadonlyArray<string>) =>
    sql<Row>`SELECT ${columns} FROM catalog_records r WHERE r.company_id = ${companyId} AND r.resource = ${resource} AND r.id IN ${inList(sql, ids)}`

  const findExisting = SqlSchema.findAll({
    Request: Schema.Struct({ companyId: Ids.CompanyId, resource: ReferenceTarget, ids: Schema.Array(Ids.RecordId) }),
    Result: Schema.Struct({ id: Ids.RecordId }),
    execute: ({ companyId, ids, resource }) =>
      resource === "media"
        ? // Only completed media can be referenced.
          sql`SELECT id FROM media WHERE company_id = ${companyId} AND state = 'completed' AND id IN ${inList(sql, ids)}`
        : sql`SELECT id FROM catalog_records WHERE company_id = ${companyId} AND resource = ${resource} AND id IN ${inList(sql, ids)}`
  })

  // RETURNING tells in the same statement whether the compare-and-set matched; on PostgreSQL the WHERE is
  // re-checked after waiting for a concurrent writer's row lock, so two racing updates never both match.
  const updateRow = (row: typeof RecordRow.Encoded, expectedRevision: number) =>
    sql<{ readonly revision: number }>`UPDATE catalog_records SET ${sql.update(row, ["company_id", "resource", "id"])}
          WHERE company_id = ${row.company_id} AND resource = ${row.resource} AND id = ${row.id}
            AND revision = ${expectedRevision}
          RETURNING revision`

  const currentRevision = SqlSchema.findOneOption({
    Request: Schema.Struct({ companyId: Ids.CompanyId, resource: Resource.ResourceName, id: Ids.RecordId }),
    Result: Schema.Struct({ revision: Schema.Int }),
    execute: ({ companyId, id, resource }) =>
      sql`SELECT revision FROM catalog_records WHERE company_id = ${companyId} AND resource = ${resource} AND id = ${id}`
  })

  const findBundles = SqlSchema.findAll({
    Request: Schema.Struct({ companyId: Ids.CompanyId, productId: Ids.RecordId }),
    Result: Schema.Struct({ bundle_id: Ids.RecordId }),
    execute: ({ companyId, productId }) =>
      sql`SELECT rc.bundle_id FROM record_components rc
          JOIN catalog_records r ON r.company_id = rc.company_id AND r.resource = 'products' AND r.id = rc.bundle_id
          WHERE rc.company_id = ${companyId} AND rc.component_id = ${productId} AND r.archived_at IS NULL
          ORDER BY rc.bundle_id`
  })

  const findChildren = (companyId: string, resource: string, parentIds: ReadonlyArray<string>) =>
    sql<Row>`SELECT ${sql.literal(recordColumns)} FROM catalog_records r
          WHERE r.company_id = ${companyId} AND r.resource = ${resource} AND r.parent_id IN ${inList(sql, parentIds)}`

  // Rule checks that read other records run under READ COMMITTED on PostgreSQL, where two transactions do
  // not see each other's uncommitted writes; a per-company transaction lock per rule makes them take turns.
  // SQLite writers are serial already.
  const ruleLock = (topic: string, companyId: string) =>
    sql.onDialectOrElse({
      pg: () => sql`SELECT pg_advisory_xact_lock(hashtext(${`${topic}:${companyId}`}))`.pipe(Effect.asVoid),
      orElse: () => Effect.void
    })

  // A negative LIMIT means "no limit" to SQLite and is an error to PostgreSQL: refused on both (core
  // never asks for one). The rows are mapped directly.
  const listRecords = (params: ListParams): Effect.Effect<ReadonlyArray<Row>, SqlError.SqlError> =>
    Number.isSafeInteger(params.limit) && params.limit >= 0
      ? (listStatement(sql, params) as Statement.Statement<Row>)
      : Effect.die(new Error(`list with a limit of ${params.limit}`))

  const findAncestors = SqlSchema.findAll({
    Request: Schema.Struct({ companyId: Ids.CompanyId, categoryId: Ids.RecordId, maxDepth: Schema.Int }),
    Result: Schema.Struct({ parent_id: Ids.RecordId }),
    execute: (request) => ancestorsStatement(sql, request)
  })

  return CatalogRepository.CatalogRepository.of({
    get: (companyId, resource, id) =>
      findRecord(companyId, resource, id).pipe(
        Effect.map((rows) => Option.map(Arr.head(rows), storedRecordOf)),
        refineErrors,
        span("CatalogRepository.get", { companyId, resource, id })
      ),

    getMapped: (companyId, resource, id, connectionId) =>
      readMapped(companyId, resource, id, connectionId).pipe(
        span("CatalogRepository.getMapped", { companyId, resource, id })
      ),

    getMany: (companyId, resource, ids) => {
      const unique = Arr.dedupe(ids)
      return Effect.forEach(chunks(unique), (chunk) => findRecords(companyId, resource, chunk)).pipe(
        Effect.map((pages) => {
          const byId = new Map(pages.flat().map((row) => [row.id as string, storedRecordOf(row)] as const))
          // Results follow the caller's order, as the in-memory reference does.
          return unique.flatMap((id) => byId.get(id) ?? [])
        }),
        refineErrors,
        span("CatalogRepository.getMany", { companyId, resource, count: ids.length })
      )
    },

    // "media" asks the media table, where only completed items count (see findExisting).
    existing: (companyId, target, ids) =>
      Effect.forEach(chunks(Arr.dedupe(ids)), (chunk) =>
        findExisting({ companyId, resource: target, ids: chunk })
      ).pipe(
        Effect.map((pages): ReadonlySet<Ids.RecordId> => new Set(pages.flat().map((row) => row.id))),
        refineErrors,
        span("CatalogRepository.existing", { companyId, target, count: ids.length })
      ),

    insert: (record) =>
      insertWithLinks(record).pipe(
        // A record and its category links are one write even when the caller opened no transaction.
        atomically(sql),
        refineErrors,
        span("CatalogRepository.insert", { companyId: record.companyId, resource: record.resource, id: record.id })
      ),

    insertMany: (records) =>
      insertNew(records).pipe(
        atomically(sql),
        refineErrors,
        span("CatalogRepository.insertMany", { count: records.length })
      ),

    update: (record, expectedRevision, previous) =>
      Effect.gen(function* () {
        const updated = yield* updateRow(recordRowOf(record), expectedRevision)
        if (updated.length === 0) {
          const current = yield* currentRevision({
            companyId: record.companyId,
            resource: record.resource,
            id: record.id
          })
          if (Option.isNone(current)) {
            // Core only updates records it has just read in the same company; a missing one is a bug.
            return yield* Effect.die(new Error(`update of a missing ${record.resource} record ${record.id}`))
          }
          return yield* revisionConflict(record.id, current.value.revision, expectedRevision)
        }
        yield* replaceLinks(record, true, previous)
      }).pipe(
        atomically(sql),
        refineErrors,
        span("CatalogRepository.update", {
          companyId: record.companyId,
          resource: record.resource,
          id: record.id,
          expectedRevision
        })
      ),

    list: (companyId, resource, query) =>
      listRecords({ ...query, companyId, resource }).pipe(
        Effect.map(Arr.map(storedRecordOf)),
        refineErrors,
        span("CatalogRepository.list", { companyId, resource, limit: query.limit })
      ),

    listMapped: (companyId, resource, query, connectionId) =>
      listRecords({ ...query, companyId, resource, mappedFor: connectionId }).pipe(
        Effect.map(
          Arr.map((row) => ({ record: storedRecordOf(row), externalId: row.mapped_external_id as string | null }))
        ),
        refineErrors,
        span("CatalogRepository.listMapped", { companyId, resource, limit: query.limit })
      ),

    // The chain is read to refuse a cycle before a parent change. On PostgreSQL two concurrent parent
    // changes (A under B, B under A) could each pass the check under READ COMMITTED, so the read first takes
    // a per-company transaction lock: the second change waits for the first and sees its parent. SQLite
    // writers are serial already.
    children: (companyId, resource, parentIds) =>
      Effect.forEach(chunks(Arr.dedupe(parentIds)), (chunk) => findChildren(companyId, resource, chunk)).pipe(
        Effect.map((pages) =>
          pages
            .flat()
            .map(storedRecordOf)
            .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        ),
        refineErrors,
        span("CatalogRepository.children", { companyId, resource, count: parentIds.length })
      ),

    bundlesContaining: (companyId, productId) =>
      ruleLock("bundles", companyId).pipe(
        Effect.andThen(findBundles({ companyId, productId })),
        Effect.map(Arr.map((row) => row.bundle_id)),
        refineErrors,
        span("CatalogRepository.bundlesContaining", { companyId, productId })
      ),

    lockPricing: (companyId) => ruleLock("pricing", companyId).pipe(refineErrors),

    ancestors: (companyId, categoryId, maxDepth) =>
      ruleLock("categories", companyId).pipe(
        Effect.andThen(maxDepth <= 0 ? Effect.succeed([]) : findAncestors({ companyId, categoryId, maxDepth })),
        Effect.map(Arr.map((row) => row.parent_id)),
        refineErrors,
        span("CatalogRepository.ancestors", { companyId, categoryId, maxDepth })
      )
  })
})

/** CatalogRepository over the `SqlClient` in context. */
export const layer: Layer.Layer<CatalogRepository.CatalogRepository, never, SqlClient.SqlClient> = Layer.effect(
  CatalogRepository.CatalogRepository,
  make
)

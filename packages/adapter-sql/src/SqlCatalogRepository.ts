import { Errors, CatalogRepository, Ids, Resource, type StoredRecord } from "@catalog-sync/core"
import { SqlClient, type SqlError, type Statement, SqlSchema } from "effect/sql"
import { Array as Arr, type Context, Effect, Layer, Option, Schema } from "effect"
import { refineErrors } from "./internal/errors.js"
import { atomically } from "./internal/transaction.js"
import {
  chunks,
  padded,
  recordColumns,
  type RecordRow,
  recordRowOf,
  ReferenceTarget,
  storedRecordOf
} from "./internal/rows.js"
import { span } from "./internal/spans.js"

/** The parameters of a list query, as plain values. */
export interface ListParams {
  readonly companyId: string
  readonly resource: string
  readonly limit: number
  readonly cursor?: string | undefined
  readonly externalId?: { readonly connectionId: string; readonly value: string } | undefined
  readonly includeArchived?: boolean | undefined
  readonly categoryId?: string | undefined
  readonly collectionId?: string | undefined
  readonly brandId?: string | undefined
  readonly active?: boolean | undefined
  /** Each row also carries `mapped_external_id`: the external id this connection's mapping gives it, or null. */
  readonly mappedFor?: string | undefined
}

/**
 * The statement behind `CatalogRepository.list`, exported so that each driver can check its query plan.
 *
 * The table that drives the scan is chosen so that an index delivers rows already in id order and the
 * cursor becomes a range bound on that index: `mappings` for an external id (one row at most),
 * `record_categories` (category index, ordered by product id) for a category, else `catalog_records`
 * itself, where the planner picks the partial "live" index or the filter column's index. Other filters
 * are checked on the rows the scan reaches.
 *
 * CROSS JOIN (with the join condition in WHERE, which both engines accept) pins the driving table on
 * SQLite, whose planner otherwise flips to scanning `catalog_records` and sorting in a temp b-tree once
 * ANALYZE statistics say a category is large, reading the whole company instead of one page. PostgreSQL
 * treats CROSS JOIN as an ordinary inner join and keeps choosing freely.
 */
export const listStatement = (sql: SqlClient.SqlClient, params: ListParams): Statement.Statement<unknown> => {
  const where: Array<Statement.Fragment> = [
    sql`r.company_id = ${params.companyId}`,
    sql`r.resource = ${params.resource}`
  ]
  let from = sql`catalog_records r`
  let idColumn = sql.literal("r.id")
  if (params.externalId !== undefined) {
    from = sql`mappings m CROSS JOIN catalog_records r`
    where.push(
      sql`r.company_id = m.company_id`,
      sql`r.resource = m.resource`,
      sql`r.id = m.record_id`,
      sql`m.company_id = ${params.companyId}`,
      sql`m.connection_id = ${params.externalId.connectionId}`,
      sql`m.resource = ${params.resource}`,
      sql`m.external_id = ${params.externalId.value}`
    )
    if (params.categoryId !== undefined) {
      where.push(
        sql`EXISTS (SELECT 1 FROM record_categories rc WHERE rc.company_id = r.company_id AND rc.product_id = r.id AND rc.category_id = ${params.categoryId})`
      )
    }
  } else if (params.categoryId !== undefined) {
    from = sql`record_categories rc CROSS JOIN catalog_records r`
    where.push(
      sql`r.company_id = rc.company_id`,
      sql`r.id = rc.product_id`,
      sql`rc.company_id = ${params.companyId}`,
      sql`rc.category_id = ${params.categoryId}`
    )
    // Ordering and paging on rc.product_id (equal to r.id) lets the category index serve ORDER BY.
    idColumn = sql.literal("rc.product_id")
  }
  if (params.includeArchived !== true) where.push(sql`r.archived_at IS NULL`)
  if (params.collectionId !== undefined) where.push(sql`r.collection_id = ${params.collectionId}`)
  if (params.brandId !== undefined) where.push(sql`r.brand_id = ${params.brandId}`)
  if (params.active !== undefined) where.push(sql`r.active = ${params.active ? 1 : 0}`)
  if (params.cursor !== undefined) where.push(sql`${idColumn} > ${params.cursor}`)
  // A LEFT JOIN on the mapping's unique (company, connection, resource, record) key: one more key lookup
  // per row of the page, after the driving scan (SQLite never moves a LEFT JOIN's right side first).
  const mapped =
    params.mappedFor === undefined
      ? sql``
      : sql`LEFT JOIN mappings mx ON mx.company_id = r.company_id AND mx.connection_id = ${params.mappedFor} AND mx.resource = r.resource AND mx.record_id = r.id`
  const mappedColumn = sql.literal(params.mappedFor === undefined ? "" : ", mx.external_id AS mapped_external_id")
  return sql`SELECT ${sql.literal(recordColumns)}${mappedColumn} FROM ${from} ${mapped} WHERE ${sql.and(where)} ORDER BY ${idColumn} LIMIT ${params.limit}`
}

/**
 * The statement behind `CatalogRepository.ancestors`, exported so that each driver can check its plan.
 *
 * The chain holds parent ids, nearest first. A parent id whose record is missing still counts (the walk
 * stops after it), as in the in-memory reference; `depth` bounds the walk, which also ends cycles.
 * CROSS JOIN keeps `chain` as the outer loop on SQLite so that each step is one primary-key lookup; with
 * ANALYZE statistics its planner otherwise scans every category of the company at every step.
 */
export const ancestorsStatement = (
  sql: SqlClient.SqlClient,
  params: { readonly companyId: string; readonly categoryId: string; readonly maxDepth: number }
): Statement.Statement<unknown> =>
  sql`WITH RECURSIVE chain (parent_id, depth) AS (
        SELECT parent_id, 1 FROM catalog_records
        WHERE company_id = ${params.companyId} AND resource = 'categories' AND id = ${params.categoryId}
        UNION ALL
        SELECT c.parent_id, chain.depth + 1 FROM chain CROSS JOIN catalog_records c
        WHERE c.company_id = ${params.companyId} AND c.resource = 'categories' AND c.id = chain.parent_id
          AND chain.depth < ${params.maxDepth}
      )
      SELECT parent_id FROM chain WHERE parent_id IS NOT NULL AND depth <= ${params.maxDepth} ORDER BY depth`

const revisionConflict = (id: string, current: number, expected: number) =>
  new Errors.RevisionConflict({
    message: `record ${id} is at revision ${current}, not ${expected}`,
    current_revision: current,
    expected_revision: expected
  })

/**
 * The link tables that mirror a product's index, each keyed by the owning record id: record_categories
 * (for the category filter) and record_components (for "which bundles contain this product"). Only
 * products carry either, so other resources skip their statements.
 */
const linkTables = [
  {
    table: "record_categories",
    owner: "product_id",
    target: "category_id",
    idsOf: (index: StoredRecord.RecordIndex) => index.categoryIds
  },
  {
    table: "record_components",
    owner: "bundle_id",
    target: "component_id",
    idsOf: (index: StoredRecord.RecordIndex) => index.componentIds
  }
] as const

/** A product's rows in one link table, one per distinct id. */
const linkRows = (link: (typeof linkTables)[number], record: StoredRecord.StoredRecord) =>
  Array.from(new Set(link.idsOf(record.index)), (id) => ({
    company_id: record.companyId,
    [link.owner]: record.id,
    [link.target]: id
  }))

/** Whether two id lists hold the same ids, whatever their order and repeats. */
const sameIds = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => {
  const left = new Set(a)
  const right = new Set(b)
  return left.size === right.size && Array.from(left).every((id) => right.has(id))
}

/** CatalogRepository over any `SqlClient`. */
export const make: Effect.Effect<
  Context.Service.Shape<typeof CatalogRepository.CatalogRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(recordColumns)

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
    sql<Row>`SELECT ${columns} FROM catalog_records r WHERE r.company_id = ${companyId} AND r.resource = ${resource} AND r.id IN ${sql.in(padded(ids))}`

  const findExisting = SqlSchema.findAll({
    Request: Schema.Struct({ companyId: Ids.CompanyId, resource: ReferenceTarget, ids: Schema.Array(Ids.RecordId) }),
    Result: Schema.Struct({ id: Ids.RecordId }),
    execute: ({ companyId, ids, resource }) =>
      resource === "media"
        ? // Only completed media can be referenced.
          sql`SELECT id FROM media WHERE company_id = ${companyId} AND state = 'completed' AND id IN ${sql.in(padded(ids))}`
        : sql`SELECT id FROM catalog_records WHERE company_id = ${companyId} AND resource = ${resource} AND id IN ${sql.in(padded(ids))}`
  })

  const insertRow = (row: typeof RecordRow.Encoded) => sql`INSERT INTO catalog_records ${sql.insert(row)}`

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

  // On an update with the replaced record's index (`previous`), a table whose ids did not change is left as it is.
  const replaceLinks = (
    record: StoredRecord.StoredRecord,
    replacing: boolean,
    previous?: StoredRecord.RecordIndex | undefined
  ) =>
    Effect.gen(function* () {
      if (record.resource !== "products") return
      for (const link of linkTables) {
        if (replacing && previous !== undefined && sameIds(link.idsOf(previous), link.idsOf(record.index))) continue
        if (replacing) {
          yield* sql`DELETE FROM ${sql(link.table)} WHERE company_id = ${record.companyId} AND ${sql(link.owner)} = ${record.id}`
        }
        const rows = linkRows(link, record)
        if (Arr.isReadonlyArrayNonEmpty(rows)) yield* sql`INSERT INTO ${sql(link.table)} ${sql.insert(rows)}`
      }
    })

  // A new record with its link rows. On PostgreSQL one statement (the link rows in data-modifying CTEs, their
  // ids as one array parameter so that the text does not vary with their count): a product's create makes
  // one round trip inside its transaction instead of up to three. SQLite runs them in turn, in process.
  const insertWithLinks = (record: StoredRecord.StoredRecord) => {
    const row = recordRowOf(record)
    const links =
      record.resource === "products"
        ? linkTables.flatMap((link) => {
            const ids = Array.from(new Set(link.idsOf(record.index)))
            return ids.length === 0 ? [] : [{ link, ids }]
          })
        : []
    const [first, second] = links
    if (first === undefined) return Effect.asVoid(insertRow(row))
    const linkInsert = ({ ids, link }: (typeof links)[number]) =>
      sql`INSERT INTO ${sql(link.table)} (company_id, ${sql(link.owner)}, ${sql(link.target)})
          SELECT ${record.companyId}, ${record.id}, unnest(CAST(${ids} AS TEXT[]))`
    return sql.onDialectOrElse({
      pg: () =>
        Effect.asVoid(
          second === undefined
            ? sql`WITH inserted AS (INSERT INTO catalog_records ${sql.insert(row)}) ${linkInsert(first)}`
            : sql`WITH inserted AS (INSERT INTO catalog_records ${sql.insert(row)}),
                  first_links AS (${linkInsert(first)}) ${linkInsert(second)}`
        ),
      orElse: () => Effect.andThen(insertRow(row), replaceLinks(record, false))
    })
  }

  // An import batch's new records: the rows and then each link table in one multi-row statement per chunk.
  const insertNew = (records: ReadonlyArray<StoredRecord.StoredRecord>) =>
    Effect.gen(function* () {
      for (const chunk of chunks(records, 500))
        yield* sql`INSERT INTO catalog_records ${sql.insert(Arr.map(chunk, recordRowOf))}`
      const products = records.filter((record) => record.resource === "products")
      for (const link of linkTables) {
        const rows = products.flatMap((record) => linkRows(link, record))
        for (const chunk of chunks(rows)) yield* sql`INSERT INTO ${sql(link.table)} ${sql.insert(chunk)}`
      }
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
          WHERE r.company_id = ${companyId} AND r.resource = ${resource} AND r.parent_id IN ${sql.in(padded(parentIds))}`

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

import { Errors, Ids, Mappings } from "@catalog-sync/core"
import { SqlClient, type SqlError, SqlSchema } from "effect/sql"
import { Array as Arr, type Context, Effect, Layer, Option, Schema } from "effect"
import { refineErrors } from "./internal/errors.js"
import { chunks, MappingRow } from "./internal/rows.js"
import { inList } from "./internal/inList.js"
import { span } from "./internal/spans.js"

/** A mapping as the lookups read it. */
type MappingPair = { readonly external_id: string; readonly record_id: Ids.RecordId }

const scopeAttributes = (scope: Mappings.MappingScope) => ({
  companyId: scope.companyId,
  connectionId: scope.connectionId,
  resource: scope.resource
})

/** The external ids of some records in a scope; exported for query-plan tests. */
export const byRecordStatement = (
  sql: SqlClient.SqlClient,
  scope: { readonly companyId: string; readonly connectionId: string; readonly resource: string },
  recordIds: ReadonlyArray<string>
) =>
  sql.onDialectOrElse({
    // With several ids SQLite prefers the primary key prefix and scans the connection's mappings;
    // driving the join from the id list makes each id one lookup in the (…, record_id) index.
    sqlite: () =>
      sql<MappingPair>`SELECT m.external_id, m.record_id FROM json_each(${JSON.stringify(recordIds)}) AS ids
          CROSS JOIN mappings AS m
          WHERE m.company_id = ${scope.companyId} AND m.connection_id = ${scope.connectionId}
            AND m.resource = ${scope.resource} AND m.record_id = ids.value`,
    orElse: () =>
      sql<MappingPair>`SELECT external_id, record_id FROM mappings
          WHERE company_id = ${scope.companyId} AND connection_id = ${scope.connectionId}
            AND resource = ${scope.resource} AND record_id IN ${inList(sql, recordIds)}`
  })

const rowOf = (mapping: Mappings.Mapping) => ({
  company_id: mapping.companyId,
  connection_id: mapping.connectionId,
  resource: mapping.resource,
  external_id: mapping.externalId,
  record_id: mapping.recordId,
  created_at: mapping.createdAt
})

/** The most external ids `findAcross` reads in one statement (every engine's parameter limit is far above). */
const maxAcross = 1000

/** Mappings over any `SqlClient`. */
export const make: Effect.Effect<
  Context.Service.Shape<typeof Mappings.Mappings>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // Lookups run on every read and write: their keys are typed by core and their rows are our own, so
  // neither side goes through a schema (docs/performance.md, "What each design choice buys").
  const findByExternal = (scope: Mappings.MappingScope, externalIds: ReadonlyArray<string>) =>
    sql<MappingPair>`SELECT external_id, record_id FROM mappings
          WHERE company_id = ${scope.companyId} AND connection_id = ${scope.connectionId}
            AND resource = ${scope.resource} AND external_id IN ${inList(sql, externalIds)}`

  // Lookups of several scopes as one statement, each row tagged with its lookup's place.
  const findAcross = (lookups: ReadonlyArray<Mappings.MappingLookup>) =>
    sql<MappingPair & { readonly lookup: number | string }>`${sql.join(
      " UNION ALL ",
      false
    )(
      lookups.map(
        ({ externalIds, scope }, i) =>
          sql`SELECT ${sql.literal(String(i))} AS lookup, external_id, record_id FROM mappings
          WHERE company_id = ${scope.companyId} AND connection_id = ${scope.connectionId}
            AND resource = ${scope.resource} AND external_id IN ${inList(sql, externalIds)}`
      )
    )}`

  const findByRecord = (scope: Mappings.MappingScope, recordIds: ReadonlyArray<string>) =>
    byRecordStatement(sql, scope, recordIds)

  // ON CONFLICT DO NOTHING instead of catching the unique violation: the statement cannot fail, so a
  // PostgreSQL transaction is not aborted by it and no driver message has to be parsed to learn which
  // constraint fired. Both engines accept this syntax (SQLite >= 3.35 for RETURNING).
  const insertRow = SqlSchema.findAll({
    Request: MappingRow,
    Result: Schema.Struct({ record_id: Ids.RecordId }),
    execute: (row) => sql`INSERT INTO mappings ${sql.insert(row)} ON CONFLICT DO NOTHING RETURNING record_id`
  })

  // After a skipped insert the conflicting row is committed (PostgreSQL waits for the other writer before
  // deciding to skip), so this read finds it.
  const findConflicts = SqlSchema.findAll({
    Request: MappingRow,
    Result: Schema.Struct({ external_id: Schema.String, record_id: Ids.RecordId }),
    execute: (row) =>
      sql`SELECT external_id, record_id FROM mappings
          WHERE company_id = ${row.company_id} AND connection_id = ${row.connection_id} AND resource = ${row.resource}
            AND (external_id = ${row.external_id} OR record_id = ${row.record_id})`
  })

  const resolve = <K extends string, E>(
    keys: ReadonlyArray<K>,
    query: (
      chunk: ReadonlyArray<K>
    ) => Effect.Effect<ReadonlyArray<{ readonly external_id: string; readonly record_id: Ids.RecordId }>, E>
  ) => Effect.forEach(chunks(Arr.dedupe(keys)), query).pipe(Effect.map((pages) => pages.flat()))

  // A scope's mappings of many external ids, a statement per chunk.
  const externalRows = (scope: Mappings.MappingScope, externalIds: ReadonlyArray<string>) =>
    resolve(externalIds, (chunk) => findByExternal(scope, chunk))

  return Mappings.Mappings.of({
    find: (scope, externalId) =>
      findByExternal(scope, [externalId]).pipe(
        Effect.map((rows) => Option.map(Arr.head(rows), (row) => row.record_id)),
        refineErrors,
        span("Mappings.find", scopeAttributes(scope))
      ),

    findMany: (scope, externalIds) =>
      externalRows(scope, externalIds).pipe(
        Effect.map(
          (rows): ReadonlyMap<string, Ids.RecordId> => new Map(rows.map((row) => [row.external_id, row.record_id]))
        ),
        refineErrors,
        span("Mappings.findMany", { ...scopeAttributes(scope), count: externalIds.length })
      ),

    findAcross: (lookups) => {
      const asked = lookups.flatMap((lookup, at) =>
        lookup.externalIds.length === 0 ? [] : [{ ...lookup, externalIds: Arr.dedupe(lookup.externalIds), at }]
      )
      const total = asked.reduce((n, lookup) => n + lookup.externalIds.length, 0)
      // One statement for all; lists past one chunk (never a write's own) take findMany's statements each.
      const found: Effect.Effect<
        ReadonlyArray<{ readonly at: number; readonly row: MappingPair }>,
        SqlError.SqlError
      > = asked.length === 0
        ? Effect.succeed([])
        : total <= maxAcross
          ? Effect.map(findAcross(asked), (rows) => rows.map((row) => ({ at: asked[Number(row.lookup)]!.at, row })))
          : Effect.forEach(asked, ({ at, externalIds, scope }) =>
              Effect.map(externalRows(scope, externalIds), (rows) => rows.map((row) => ({ at, row })))
            ).pipe(Effect.map((pages) => pages.flat()))
      return found.pipe(
        Effect.map((pairs): ReadonlyArray<ReadonlyMap<string, Ids.RecordId>> => {
          const results = lookups.map(() => new Map<string, Ids.RecordId>())
          for (const { at, row } of pairs) results[at]!.set(row.external_id, row.record_id)
          return results
        }),
        refineErrors,
        span("Mappings.findAcross", { lookups: lookups.length, count: total })
      )
    },

    externalIdsOf: (scope, recordIds) =>
      resolve(recordIds, (chunk) => findByRecord(scope, chunk)).pipe(
        Effect.map(
          (rows): ReadonlyMap<Ids.RecordId, string> => new Map(rows.map((row) => [row.record_id, row.external_id]))
        ),
        refineErrors,
        span("Mappings.externalIdsOf", { ...scopeAttributes(scope), count: recordIds.length })
      ),

    // Conflicts are told only as a count: the caller (an import batch's write-behind) rolls back and
    // writes the batch record by record, where `insert` says which one.
    insertMany: (mappings) =>
      Effect.gen(function* () {
        for (const chunk of chunks(mappings, 500)) {
          const inserted =
            yield* sql`INSERT INTO mappings ${sql.insert(Arr.map(chunk, rowOf))} ON CONFLICT DO NOTHING RETURNING record_id`
          if (inserted.length < chunk.length) {
            return yield* new Errors.MappingConflict({
              reason: "external_id_taken",
              message: `${chunk.length - inserted.length} of ${chunk.length} mappings were already taken`
            })
          }
        }
      }).pipe(refineErrors, span("Mappings.insertMany", { count: mappings.length })),

    insert: (mapping) => {
      const row = rowOf(mapping)
      return Effect.gen(function* () {
        const inserted = yield* insertRow(row)
        if (inserted.length > 0) return
        const conflicts = yield* findConflicts(row)
        // The external id is checked first, as in the in-memory reference: it is what the client sent.
        if (conflicts.some((c) => c.external_id === row.external_id)) {
          return yield* new Errors.MappingConflict({
            reason: "external_id_taken",
            message: `external_id ${JSON.stringify(row.external_id)} is already mapped`
          })
        }
        if (conflicts.some((c) => c.record_id === row.record_id)) {
          return yield* new Errors.MappingConflict({
            reason: "record_already_mapped",
            message: `record ${row.record_id} is already mapped`
          })
        }
        return yield* Effect.die(
          new Error(`mapping insert for ${row.external_id} was skipped without a conflicting row`)
        )
      }).pipe(refineErrors, span("Mappings.insert", { ...scopeAttributes(mapping), recordId: mapping.recordId }))
    }
  })
})

/** Mappings over the `SqlClient` in context. */
export const layer: Layer.Layer<Mappings.Mappings, never, SqlClient.SqlClient> = Layer.effect(Mappings.Mappings, make)

import { ChangeLog } from "@catalog-sync/core"
import { SqlClient, SqlSchema } from "@effect/sql"
import { type Context, Effect, Layer, Schema } from "effect"
import { refineErrors } from "./internal/errors.js"
import { chunks } from "./internal/rows.js"
import { span } from "./internal/spans.js"
import { directClient } from "./internal/direct.js"

const Position = Schema.Union(Schema.Number, Schema.NumberFromString)

const LoggedRow = Schema.Struct({
  position: Position,
  company_id: Schema.String,
  resource: Schema.String,
  record_id: Schema.String,
  revision: Schema.Union(Schema.Number, Schema.NumberFromString),
  operation: Schema.Literal("created", "updated", "archived"),
  origin_connection_id: Schema.String,
  at: Schema.String,
  external_id: Schema.NullOr(Schema.String)
})
const decodeLogged = Schema.decodeUnknown(Schema.Array(LoggedRow))

/**
 * ChangeLog over any `SqlClient`.
 *
 * Ordering: the feed must never let a reader pass a position whose transaction commits later. A serial
 * alone cannot promise that on PostgreSQL (a lower id can commit after a higher one is read), so the
 * append first takes a transaction-scoped advisory lock on the company: the position is drawn under the
 * lock and the lock is held until commit, so one company's positions become visible in order. The cost
 * is that one company's writes serialise from their append to their commit, the last step of every write.
 * SQLite has a single writer, so its positions are in commit order already.
 */
export const make: Effect.Effect<
  Context.Tag.Service<typeof ChangeLog.ChangeLog>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* directClient
  const lockCompany = (companyId: string) =>
    sql.onDialectOrElse({
      pg: () => sql`SELECT pg_advisory_xact_lock(hashtext(${companyId}))`.pipe(Effect.asVoid),
      orElse: () => Effect.void
    })
  const latest = SqlSchema.single({
    Request: Schema.String,
    Result: Schema.Struct({ position: Position }),
    execute: (companyId) =>
      sql`SELECT COALESCE(MAX(position), 0) AS position FROM changes WHERE company_id = ${companyId}`
  })
  // Our own rows, built from core's typed entries: written as they are, without a schema pass.
  const rowOf = (entry: ChangeLog.ChangeEntry) => ({
    company_id: entry.companyId,
    resource: entry.resource,
    record_id: entry.recordId,
    revision: entry.revision,
    operation: entry.operation,
    origin_connection_id: entry.originConnectionId,
    at: entry.at,
    visibility: ChangeLog.maskOf(ChangeLog.partsOf(entry))
  })
  const insertRows = (entries: ReadonlyArray<ChangeLog.ChangeEntry>) =>
    sql`INSERT INTO changes ${sql.insert(entries.map(rowOf))}`
  return ChangeLog.ChangeLog.of({
    append: (entry) =>
      lockCompany(entry.companyId).pipe(
        Effect.zipRight(insertRows([entry])),
        refineErrors,
        span("ChangeLog.append", {
          companyId: entry.companyId,
          resource: entry.resource,
          recordId: entry.recordId,
          revision: entry.revision
        })
      ),
    // The lock once per company, then the rows in one statement per chunk: a multi-row VALUES list takes
    // its positions in list order on both engines, so the entries keep the order they were given in.
    appendMany: (entries) =>
      Effect.gen(function* () {
        for (const companyId of new Set(entries.map((entry) => entry.companyId))) yield* lockCompany(companyId)
        for (const chunk of chunks(entries, 500)) yield* insertRows(chunk)
      }).pipe(refineErrors, span("ChangeLog.appendMany", { count: entries.length })),

    head: (companyId) =>
      latest(companyId).pipe(
        Effect.map((row) => row.position),
        // An aggregate always returns one row; a missing one is a bug.
        Effect.catchTag("NoSuchElementException", Effect.die),
        refineErrors,
        span("ChangeLog.head", { companyId })
      ),
    read: (query) =>
      sql`
        SELECT c.position, c.company_id, c.resource, c.record_id, c.revision, c.operation, c.origin_connection_id, c.at,
               m.external_id
        FROM changes c
        LEFT JOIN mappings m
          ON m.company_id = c.company_id AND m.connection_id = ${query.connectionId}
         AND m.resource = c.resource AND m.record_id = c.record_id
        WHERE c.company_id = ${query.companyId}
          AND c.position > ${query.after} AND c.position <= ${query.upTo}
          AND (c.visibility & ${query.visibleMask}) <> 0
          ${query.resources === undefined ? sql`` : sql`AND c.resource IN ${sql.in(query.resources)}`}
        ORDER BY c.position
        LIMIT ${query.limit}
      `.pipe(
        Effect.flatMap(decodeLogged),
        Effect.map((rows) =>
          rows.map((row) => ({
            position: row.position,
            companyId: row.company_id as never,
            resource: row.resource,
            recordId: row.record_id as never,
            revision: row.revision,
            operation: row.operation,
            originConnectionId: row.origin_connection_id as never,
            at: row.at,
            externalId: row.external_id
          }))
        ),
        Effect.catchTag("ParseError", Effect.die),
        refineErrors,
        span("ChangeLog.read", { companyId: query.companyId, after: query.after })
      )
  })
})

/** ChangeLog over the `SqlClient` in context. */
export const layer: Layer.Layer<ChangeLog.ChangeLog, never, SqlClient.SqlClient> = Layer.effect(
  ChangeLog.ChangeLog,
  make
)

import { ChangeLog } from "@catalog-sync/core"
import { SqlClient, SqlSchema } from "@effect/sql"
import { type Context, Effect, Layer, Schema } from "effect"
import { refineErrors } from "./internal/errors.js"
import { ChangeRow } from "./internal/rows.js"

/**
 * ChangeLog over any `SqlClient`. The database assigns `position`; on SQLite writers are serialised, so
 * positions follow commit order. PostgreSQL needs more than a serial for the feed (a lower id can commit
 * after a higher one was read); that is the change-feed issue's business, not append's.
 */
export const make: Effect.Effect<Context.Tag.Service<typeof ChangeLog.ChangeLog>, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const insertRow = SqlSchema.void({
    Request: ChangeRow,
    execute: (row) => sql`INSERT INTO changes ${sql.insert(row)}`
  })
  const latest = SqlSchema.single({
    Request: Schema.String,
    Result: Schema.Struct({ position: Schema.Union(Schema.Number, Schema.NumberFromString) }),
    execute: (companyId) => sql`SELECT COALESCE(MAX(position), 0) AS position FROM changes WHERE company_id = ${companyId}`
  })
  return ChangeLog.ChangeLog.of({
    cursor: (companyId) =>
      latest(companyId).pipe(
        Effect.map((row) => String(row.position)),
        // An aggregate always returns one row; a missing one is a bug.
        Effect.catchTag("NoSuchElementException", Effect.die),
        refineErrors,
        Effect.withSpan("ChangeLog.cursor", { attributes: { companyId } })
      ),
    append: (entry) =>
      insertRow({
        company_id: entry.companyId,
        resource: entry.resource,
        record_id: entry.recordId,
        revision: entry.revision,
        operation: entry.operation,
        origin_connection_id: entry.originConnectionId,
        at: entry.at
      }).pipe(
        refineErrors,
        Effect.withSpan("ChangeLog.append", {
          attributes: { companyId: entry.companyId, resource: entry.resource, recordId: entry.recordId, revision: entry.revision }
        })
      )
  })
})

/** ChangeLog over the `SqlClient` in context. */
export const layer: Layer.Layer<ChangeLog.ChangeLog, never, SqlClient.SqlClient> = Layer.effect(ChangeLog.ChangeLog, make)

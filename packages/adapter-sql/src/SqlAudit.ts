import { AuditLog, Ids } from "@catalog-sync/core"
import { SqlClient, SqlSchema } from "effect/sql"
import { type Context, Effect, Layer, Schema } from "effect"
import { refineErrors } from "./internal/errors.js"
import { atomically } from "./internal/transaction.js"
import { span } from "./internal/spans.js"

/** A row of `audit_log`; `details` is a JSON object of strings in TEXT. */
const AuditRow = Schema.Struct({
  ...AuditLog.AuditEntry.fields,
  company_id: Schema.NullOr(Ids.CompanyId),
  details: Schema.fromJsonString(Schema.Record(Schema.String, Schema.String))
})

const columns = Object.keys(AuditRow.fields).join(", ")

/** The audit log over any `SqlClient`: an entry is inserted in its write's transaction. */
export const make: Effect.Effect<
  Context.Service.Shape<typeof AuditLog.AuditLog>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const insertEntry = SqlSchema.void({
    Request: AuditRow,
    execute: (row) => sql`INSERT INTO audit_log ${sql.insert(row)}`
  })

  // Newest first by `seq`, the order of appending (an identity column); (company_id, seq) serves a
  // company's pages.
  const findEntries = SqlSchema.findAll({
    Request: Schema.Struct({
      companyId: Schema.NullOr(Schema.String),
      before: Schema.NullOr(Schema.String),
      limit: Schema.Int
    }),
    Result: AuditRow,
    execute: ({ before, companyId, limit }) =>
      sql`SELECT ${sql.literal(columns)} FROM audit_log
          WHERE ${sql.and([
            ...(companyId === null ? [] : [sql`company_id = ${companyId}`]),
            ...(before === null ? [] : [sql`seq < (SELECT seq FROM audit_log WHERE id = ${before})`])
          ])}
          ORDER BY seq DESC LIMIT ${limit}`
  })

  return AuditLog.AuditLog.of({
    withEntry: (write, entry) =>
      write.pipe(
        Effect.tap((result) => insertEntry(entry(result)).pipe(refineErrors, span("AuditLog.append"))),
        atomically(sql)
      ),
    list: ({ before, companyId, limit }) =>
      findEntries({ companyId: companyId ?? null, before: before ?? null, limit: Math.max(0, Math.floor(limit)) }).pipe(
        refineErrors,
        span("AuditLog.list", { companyId: companyId ?? "" })
      )
  })
})

/** The audit log over the `SqlClient` in context. */
export const layer: Layer.Layer<AuditLog.AuditLog, never, SqlClient.SqlClient> = Layer.effect(AuditLog.AuditLog, make)

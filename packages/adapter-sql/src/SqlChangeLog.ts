import { ChangeLog } from "@catalog-sync/core"
import { SqlClient, SqlSchema, type Statement } from "effect/sql"
import { type Context, Effect, Layer, Option, Schema } from "effect"
import { refineErrors } from "./internal/errors.js"
import { CurrentPendingChanges, writePending } from "./internal/pendingChanges.js"
import { chunks, NumberFromBigInt } from "./internal/rows.js"
import { inList } from "./internal/inList.js"
import { span } from "./internal/spans.js"

const Position = Schema.Union([Schema.Number, NumberFromBigInt, Schema.NumberFromString])

const LoggedRow = Schema.Struct({
  position: Position,
  company_id: Schema.String,
  resource: Schema.String,
  record_id: Schema.String,
  revision: Schema.Union([Schema.Number, NumberFromBigInt, Schema.NumberFromString]),
  operation: Schema.Literals(["created", "updated", "archived"]),
  origin_connection_id: Schema.String,
  at: Schema.String,
  external_id: Schema.NullOr(Schema.String)
})
const decodeLogged = Schema.decodeUnknownEffect(Schema.Array(LoggedRow))

/** The company's last position: its head, up to which everything is committed. */
export const headStatement = (sql: SqlClient.SqlClient, companyId: string): Statement.Statement<unknown> =>
  sql`SELECT COALESCE(MAX(company_position), 0) AS position FROM changes WHERE company_id = ${companyId}`

/**
 * One company's entries appended in one statement, numbered after the company's last position in the
 * order given. The entries are our own rows, built from core's typed entries and written as they are,
 * without a schema pass; the integers are cast because PostgreSQL reads untyped parameters in a VALUES list
 * as text. The last position (the CTE `head`) is the company's row of `change_heads` on PostgreSQL, moved
 * by as many positions in the same statement, and the highest position in `changes` on SQLite.
 */
export const appendStatement = (
  sql: SqlClient.SqlClient,
  companyId: string,
  entries: ReadonlyArray<ChangeLog.ChangeEntry>
): Statement.Statement<unknown> => {
  const count = sql.literal(String(entries.length))
  const values = sql.csv(
    entries.map(
      (entry, i) =>
        sql`(${sql.literal(String(i + 1))}, ${entry.resource}, ${entry.recordId}, CAST(${entry.revision} AS INTEGER), ${entry.operation}, ${entry.originConnectionId}, ${entry.at}, CAST(${ChangeLog.maskOf(ChangeLog.partsOf(entry))} AS INTEGER))`
    )
  )
  const head = sql.onDialectOrElse({
    pg: () => sql`head (base) AS (
        INSERT INTO change_heads (company_id, last_position) VALUES (${companyId}, ${count})
        ON CONFLICT (company_id) DO UPDATE SET last_position = change_heads.last_position + EXCLUDED.last_position
        RETURNING last_position - ${count}
      )`,
    orElse: () =>
      sql`head (base) AS (SELECT COALESCE(MAX(company_position), 0) FROM changes WHERE company_id = ${companyId})`
  })
  return sql`
    WITH added (ord, resource, record_id, revision, operation, origin_connection_id, at, visibility) AS (VALUES ${values}),
    ${head}
    INSERT INTO changes (company_id, company_position, resource, record_id, revision, operation, origin_connection_id, at, visibility)
    SELECT ${companyId}, head.base + added.ord, added.resource, added.record_id, added.revision, added.operation,
           added.origin_connection_id, added.at, added.visibility
    FROM head CROSS JOIN added`
}

/** A page of the feed: the company's changes after a position up to another, with the reader's external ids. */
export const readStatement = (sql: SqlClient.SqlClient, query: ChangeLog.ChangeQuery): Statement.Statement<unknown> =>
  sql`
    SELECT c.company_position AS position, c.company_id, c.resource, c.record_id, c.revision, c.operation,
           c.origin_connection_id, c.at, m.external_id
    FROM changes c
    LEFT JOIN mappings m
      ON m.company_id = c.company_id AND m.connection_id = ${query.connectionId}
     AND m.resource = c.resource AND m.record_id = c.record_id
    WHERE c.company_id = ${query.companyId}
      AND c.company_position > ${query.after} AND c.company_position <= ${query.upTo}
      AND (c.visibility & ${query.visibleMask}) <> 0
      ${query.resources === undefined ? sql`` : sql`AND c.resource IN ${inList(sql, query.resources)}`}
    ORDER BY c.company_position
    LIMIT ${query.limit}
  `

/** The company's position of its last change numbered at or before a position of the former global sequence. */
export const globalPositionStatement = (
  sql: SqlClient.SqlClient,
  companyId: string,
  globalPosition: number
): Statement.Statement<unknown> =>
  sql`SELECT company_position AS position FROM changes WHERE company_id = ${companyId} AND global_position <= ${globalPosition}
      ORDER BY global_position DESC LIMIT 1`

/**
 * ChangeLog over any `SqlClient`.
 *
 * Positions: each company's changes are numbered 1, 2, 3... (`changes.company_position`, the primary key
 * with `company_id`), drawn in the statement that inserts the rows, from the company's last position.
 *
 * Ordering: the feed must never let a reader pass a position whose transaction commits later. On
 * PostgreSQL the last position is the company's row in `change_heads`, moved by an upsert in that same
 * statement: the upsert locks the row until commit, and a concurrent one waits for that commit and then
 * moves on from the committed value, so one company's positions are drawn and become visible in commit
 * order, with no gap (a rollback gives its positions back). The cost is that one company's writes
 * serialise from their append to their commit, the last step of every write; different companies never
 * wait for each other. SQLite has a single writer, so the company's highest position in `changes` is its
 * last one.
 */
export const make: Effect.Effect<
  Context.Service.Shape<typeof ChangeLog.ChangeLog>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const latest = SqlSchema.findOne({
    Request: Schema.String,
    Result: Schema.Struct({ position: Position }),
    execute: (companyId) => headStatement(sql, companyId)
  })
  const atGlobal = SqlSchema.findOneOption({
    Request: Schema.Struct({ companyId: Schema.String, globalPosition: Schema.Number }),
    Result: Schema.Struct({ position: Position }),
    execute: ({ companyId, globalPosition }) => globalPositionStatement(sql, companyId, globalPosition)
  })
  // One statement per company and chunk, the companies in one order, so that two transactions appending
  // for the same companies cannot wait for each other's head rows in a cycle.
  const write = (entries: ReadonlyArray<ChangeLog.ChangeEntry>) =>
    Effect.gen(function* () {
      const byCompany = new Map<string, Array<ChangeLog.ChangeEntry>>()
      for (const entry of entries) {
        const own = byCompany.get(entry.companyId)
        if (own === undefined) byCompany.set(entry.companyId, [entry])
        else own.push(entry)
      }
      for (const companyId of Array.from(byCompany.keys()).sort()) {
        for (const chunk of chunks(byCompany.get(companyId)!, 500)) yield* appendStatement(sql, companyId, chunk)
      }
    }).pipe(refineErrors, span("ChangeLog.write", { count: entries.length }))

  // Inside a transaction of `inTransaction` the entries wait for its end (PendingChanges); outside one,
  // or in a transaction opened otherwise, they are written at once.
  const append = (entries: ReadonlyArray<ChangeLog.ChangeEntry>) =>
    Effect.flatMap(CurrentPendingChanges, (pending) => {
      if (pending === undefined) return write(entries)
      pending.write ??= write
      pending.entries.push(...entries)
      return Effect.void
    })

  // A read inside the transaction sees its own appends, as it would had they been written at once.
  const writtenFirst = Effect.flatMap(CurrentPendingChanges, (pending) =>
    pending === undefined ? Effect.void : writePending(pending)
  )

  return ChangeLog.ChangeLog.of({
    append: (entry) =>
      append([entry]).pipe(
        span("ChangeLog.append", {
          companyId: entry.companyId,
          resource: entry.resource,
          recordId: entry.recordId,
          revision: entry.revision
        })
      ),
    appendMany: (entries) => append(entries).pipe(span("ChangeLog.appendMany", { count: entries.length })),

    head: (companyId) =>
      Effect.andThen(writtenFirst, latest(companyId)).pipe(
        Effect.map((row) => row.position),
        // An aggregate always returns one row; a missing one is a bug.
        Effect.catchTag("NoSuchElementError", Effect.die),
        refineErrors,
        span("ChangeLog.head", { companyId })
      ),
    read: (query) =>
      Effect.andThen(writtenFirst, readStatement(sql, query)).pipe(
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
        Effect.catchTag("SchemaError", Effect.die),
        refineErrors,
        span("ChangeLog.read", { companyId: query.companyId, after: query.after })
      ),
    fromGlobalPosition: (companyId, globalPosition) =>
      Effect.andThen(writtenFirst, atGlobal({ companyId, globalPosition })).pipe(
        Effect.map(Option.match({ onNone: () => 0, onSome: (row) => row.position })),
        Effect.catchTag("SchemaError", Effect.die),
        refineErrors,
        span("ChangeLog.fromGlobalPosition", { companyId })
      )
  })
})

/** ChangeLog over the `SqlClient` in context. */
export const layer: Layer.Layer<ChangeLog.ChangeLog, never, SqlClient.SqlClient> = Layer.effect(
  ChangeLog.ChangeLog,
  make
)

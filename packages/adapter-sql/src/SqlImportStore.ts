import { Import, ImportStore, Resource } from "@catalog-sync/core"
import { SqlClient } from "@effect/sql"
import { type Context, Effect, Layer, Schema } from "effect"
import { refineErrors } from "./internal/errors.js"
import { chunks, Millis } from "./internal/rows.js"
import { span } from "./internal/spans.js"
import { directClient } from "./internal/direct.js"

/** A row of `import_records`. */
const ItemRow = Schema.Struct({
  job_id: Schema.String,
  idx: Millis,
  resource: Resource.ResourceName,
  // The body as sent, kept whole: a Record schema would copy it and turn a `__proto__` key into a
  // prototype, hiding it from the per-record schema check that must refuse it.
  body: Schema.parseJson(Import.ImportRecordInput.fields.body),
  external_id: Schema.NullOr(Schema.String),
  status: Import.RecordStatus,
  outcome: Schema.NullOr(Schema.Literal("created", "updated", "unchanged")),
  record_id: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.parseJson(Import.RecordError)),
  run: Millis,
  updated_at: Schema.String
})
type ItemRow = typeof ItemRow.Type

const columns = Object.keys(ItemRow.fields).join(", ")

const toItem = (row: ItemRow): ImportStore.ImportItem => ({
  jobId: row.job_id,
  index: row.idx,
  resource: row.resource,
  body: row.body,
  externalId: row.external_id,
  status: row.status,
  outcome: row.outcome,
  recordId: row.record_id,
  error: row.error,
  run: row.run,
  updatedAt: row.updated_at
})

const toRow = (item: ImportStore.ImportItem): ItemRow => ({
  job_id: item.jobId,
  idx: item.index,
  resource: item.resource,
  body: item.body,
  external_id: item.externalId,
  status: item.status,
  outcome: item.outcome,
  record_id: item.recordId,
  error: item.error,
  run: item.run,
  updated_at: item.updatedAt
})

const CountRow = Schema.Struct({
  job_id: Schema.String,
  total: Millis,
  created: Millis,
  updated: Millis,
  unchanged: Millis,
  failed: Millis,
  pending: Millis
})

const Indices = Schema.Array(Schema.Struct({ idx: Millis }))

/**
 * ImportStore over any `SqlClient`. `markApplied` is a conditional UPDATE that matches only a record
 * not yet applied: inside the transaction of the record's write it is what keeps a record from being
 * applied twice (on PostgreSQL a second writer waits for the first's row lock, then matches nothing).
 */
export const make: Effect.Effect<
  Context.Tag.Service<typeof ImportStore.ImportStore>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* directClient
  const encodeRows = Schema.encode(Schema.Array(ItemRow))
  const decodeRows = Schema.decodeUnknown(Schema.Array(ItemRow))
  const decodeIndices = Schema.decodeUnknown(Indices)
  const decodeCounts = Schema.decodeUnknown(Schema.Array(CountRow))

  return ImportStore.ImportStore.of({
    insertItems: (items) =>
      Effect.gen(function* () {
        const rows = yield* encodeRows(items.map(toRow))
        for (const chunk of chunks(rows, 50)) yield* sql`INSERT INTO import_records ${sql.insert(chunk)}`
      }).pipe(refineErrors, span("ImportStore.insertItems")),

    items: (jobId) =>
      Effect.gen(function* () {
        const rows = yield* sql`SELECT ${sql.literal(columns)} FROM import_records WHERE job_id = ${jobId} ORDER BY idx`
        return (yield* decodeRows(rows)).map(toItem)
      }).pipe(refineErrors, span("ImportStore.items")),

    markApplied: (jobId, index, result) =>
      Effect.gen(function* () {
        const rows = yield* sql`UPDATE import_records
            SET status = 'applied', outcome = ${result.outcome}, record_id = ${result.recordId}, error = NULL,
                run = ${result.run}, updated_at = ${result.at}
            WHERE job_id = ${jobId} AND idx = ${index} AND status <> 'applied'
            RETURNING idx`
        return (yield* decodeIndices(rows)).length > 0
      }).pipe(refineErrors, span("ImportStore.markApplied")),

    // One UPDATE per chunk, each record's outcome and id picked by CASE on its index: plain SQL both engines
    // run alike, and as conditional as markApplied (an applied record matches nothing).
    markAppliedMany: (jobId, results, { at, run }) =>
      Effect.gen(function* () {
        let marked = 0
        for (const chunk of chunks(results, 200)) {
          const pick = (value: (result: (typeof chunk)[number]) => string) =>
            sql`CASE idx ${sql.join(" ", false)(chunk.map((result) => sql`WHEN ${result.index} THEN ${value(result)}`))} END`
          const rows = yield* sql`UPDATE import_records
              SET status = 'applied', outcome = ${pick((result) => result.outcome)},
                  record_id = ${pick((result) => result.recordId)}, error = NULL, run = ${run}, updated_at = ${at}
              WHERE job_id = ${jobId} AND idx IN ${sql.in(chunk.map((result) => result.index))} AND status <> 'applied'
              RETURNING idx`
          marked += rows.length
        }
        return marked
      }).pipe(refineErrors, span("ImportStore.markAppliedMany", { count: results.length })),

    markFailed: (jobId, index, result) =>
      Effect.asVoid(
        sql`UPDATE import_records
            SET status = 'failed', outcome = NULL, record_id = NULL, error = ${JSON.stringify(result.error)},
                run = ${result.run}, updated_at = ${result.at}
            WHERE job_id = ${jobId} AND idx = ${index} AND status <> 'applied'`
      ).pipe(refineErrors, span("ImportStore.markFailed")),

    resetFailed: (jobId, run, at) =>
      Effect.gen(function* () {
        const rows =
          yield* sql`UPDATE import_records SET status = 'pending', error = NULL, run = ${run}, updated_at = ${at}
            WHERE job_id = ${jobId} AND status <> 'applied'
            RETURNING idx`
        return (yield* decodeIndices(rows)).map((row) => row.idx)
      }).pipe(refineErrors, span("ImportStore.resetFailed")),

    counts: (jobIds) =>
      Effect.gen(function* () {
        const out = new Map<string, ImportStore.ImportCounts>()
        if (jobIds.length === 0) return out
        const rows = yield* sql`SELECT job_id, COUNT(*) AS total,
              SUM(CASE WHEN outcome = 'created' THEN 1 ELSE 0 END) AS created,
              SUM(CASE WHEN outcome = 'updated' THEN 1 ELSE 0 END) AS updated,
              SUM(CASE WHEN outcome = 'unchanged' THEN 1 ELSE 0 END) AS unchanged,
              SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END) AS failed,
              SUM(CASE WHEN status = 'pending' THEN 1 ELSE 0 END) AS pending
            FROM import_records WHERE job_id IN ${sql.in(jobIds)} GROUP BY job_id`
        for (const { job_id, ...counts } of yield* decodeCounts(rows)) out.set(job_id, counts)
        return out
      }).pipe(refineErrors, span("ImportStore.counts"))
  })
})

/** ImportStore over the `SqlClient` in context. */
export const layer: Layer.Layer<ImportStore.ImportStore, never, SqlClient.SqlClient> = Layer.effect(
  ImportStore.ImportStore,
  make
)

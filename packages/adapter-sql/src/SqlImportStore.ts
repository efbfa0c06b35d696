import { type Import, ImportStore, type Resource } from "@catalog-sync/core"
import { SqlClient } from "effect/sql"
import { Array as Arr, type Context, Effect, Layer, Schema } from "effect"
import { refineErrors } from "./internal/errors.js"
import { chunks, Millis } from "./internal/rows.js"
import { inList } from "./internal/inList.js"
import { span } from "./internal/spans.js"

/** The columns of `import_records`, as `importRowOf` names them. */
const columns = [
  "job_id",
  "idx",
  "resource",
  "body",
  "external_id",
  "status",
  "outcome",
  "record_id",
  "error",
  "run",
  "updated_at"
].join(", ")

/**
 * The `import_records` row of an item, built directly: the body and the error are JSON text. An item is
 * typed already; encoding the rows through a schema on submission and decoding them again in the worker
 * cost ~9 % of an import record's CPU (docs/performance.md, "What each design choice buys").
 */
const importRowOf = (item: ImportStore.ImportItem) => ({
  job_id: item.jobId,
  idx: item.index,
  resource: item.resource,
  body: JSON.stringify(item.body),
  external_id: item.externalId,
  status: item.status,
  outcome: item.outcome,
  record_id: item.recordId,
  error: item.error === null ? null : JSON.stringify(item.error),
  run: item.run,
  updated_at: item.updatedAt
})

/**
 * An `import_records` row as the driver returns it, mapped without a schema: the rows are our own writes
 * (`importRowOf`). Numbers go through `Number`, as a driver may answer integers as strings. The body
 * stays as `JSON.parse` gives it: a `__proto__` key remains an own key, for the record's schema check to
 * refuse.
 */
const importItemOf = (row: Readonly<Record<string, unknown>>): ImportStore.ImportItem => ({
  jobId: row.job_id as string,
  index: Number(row.idx),
  resource: row.resource as Resource.ResourceName,
  body: JSON.parse(row.body as string) as ImportStore.ImportItem["body"],
  externalId: row.external_id as string | null,
  status: row.status as Import.RecordStatus,
  outcome: row.outcome as ImportStore.ImportItem["outcome"],
  recordId: row.record_id as string | null,
  error: row.error === null ? null : (JSON.parse(row.error as string) as Import.RecordError),
  run: Number(row.run),
  updatedAt: row.updated_at as string
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
const decodeIds = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: Schema.String })))

/**
 * The oldest import jobs finished before `finishedBefore`, read through the partial index of finished
 * jobs (migration 0014); on PostgreSQL locked for the purge, skipping a job a retry holds. The `state IN`
 * term repeats the index's condition, which is what lets a planner use it. Exported for the plan tests.
 */
export const purgeCandidatesStatement = (sql: SqlClient.SqlClient, finishedBefore: string, limit: number) => {
  const select = sql`SELECT id FROM jobs
      WHERE kind = 'import' AND state IN ('completed', 'failed') AND finished_at < ${finishedBefore}
      ORDER BY finished_at LIMIT ${limit}`
  return sql.onDialectOrElse({
    pg: () => sql`${select} FOR UPDATE SKIP LOCKED`,
    orElse: () => select
  })
}

/**
 * ImportStore over any `SqlClient`. `markApplied` is a conditional UPDATE that matches only a record
 * not yet applied: inside the transaction of the record's write it is what keeps a record from being
 * applied twice (on PostgreSQL a second writer waits for the first's row lock, then matches nothing).
 */
export const make: Effect.Effect<
  Context.Service.Shape<typeof ImportStore.ImportStore>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const decodeIndices = Schema.decodeUnknownEffect(Indices)
  const decodeCounts = Schema.decodeUnknownEffect(Schema.Array(CountRow))

  return ImportStore.ImportStore.of({
    insertItems: (items) =>
      Effect.gen(function* () {
        for (const chunk of chunks(items, 50))
          yield* sql`INSERT INTO import_records ${sql.insert(Arr.map(chunk, importRowOf))}`
      }).pipe(refineErrors, span("ImportStore.insertItems")),

    items: (jobId) =>
      Effect.gen(function* () {
        const rows = yield* sql`SELECT ${sql.literal(columns)} FROM import_records WHERE job_id = ${jobId} ORDER BY idx`
        return rows.map(importItemOf)
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
              WHERE job_id = ${jobId} AND idx IN ${inList(
                sql,
                chunk.map((result) => result.index)
              )} AND status <> 'applied'
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

    purgeFinished: (finishedBefore, limit) =>
      Effect.gen(function* () {
        const ids = (yield* decodeIds(yield* purgeCandidatesStatement(sql, finishedBefore, limit))).map((row) => row.id)
        if (ids.length === 0) return 0
        yield* sql`DELETE FROM import_records WHERE job_id IN ${inList(sql, ids)}`
        const deleted =
          yield* sql`DELETE FROM jobs WHERE id IN ${inList(sql, ids)} AND state IN ('completed', 'failed') RETURNING id`
        return deleted.length
      }).pipe(refineErrors, span("ImportStore.purgeFinished", { limit })),

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
            FROM import_records WHERE job_id IN ${inList(sql, jobIds)} GROUP BY job_id`
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

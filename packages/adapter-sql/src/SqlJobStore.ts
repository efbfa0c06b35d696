import { Ids, Job, JobStore, Scope } from "@catalog-sync/core"
import { SqlClient, SqlSchema, type Statement } from "effect/sql"
import { type Context, Effect, Layer, Option, Schema } from "effect"
import { refineErrors } from "./internal/errors.js"
import { Millis } from "./internal/rows.js"
import { inList } from "./internal/inList.js"
import { span } from "./internal/spans.js"

/** A row of `jobs`. */
const JobRow = Schema.Struct({
  id: Schema.String,
  company_id: Ids.CompanyId,
  connection_id: Ids.ConnectionId,
  key_id: Schema.String,
  kind: Job.JobKind,
  state: Job.JobState,
  scopes: Schema.fromJsonString(Schema.Array(Scope.Scope)),
  run: Millis,
  attempts: Millis,
  queued_at: Millis,
  lease_owner: Schema.NullOr(Schema.String),
  lease_until: Schema.NullOr(Millis),
  failure: Schema.NullOr(Schema.fromJsonString(Job.JobFailure)),
  created_at: Schema.String,
  started_at: Schema.NullOr(Schema.String),
  finished_at: Schema.NullOr(Schema.String),
  updated_at: Schema.String,
  trace_parent: Schema.NullOr(Schema.String)
})
type JobRow = typeof JobRow.Type

const columns = Object.keys(JobRow.fields).join(", ")

const toJob = (row: JobRow): Job.StoredJob => ({
  id: row.id,
  companyId: row.company_id,
  connectionId: row.connection_id,
  keyId: row.key_id,
  kind: row.kind,
  state: row.state,
  scopes: row.scopes,
  run: row.run,
  attempts: row.attempts,
  queuedAt: row.queued_at,
  leaseOwner: row.lease_owner,
  leaseUntil: row.lease_until,
  failure: row.failure,
  createdAt: row.created_at,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
  updatedAt: row.updated_at,
  traceParent: row.trace_parent
})

const toRow = (job: Job.StoredJob): JobRow => ({
  id: job.id,
  company_id: job.companyId,
  connection_id: job.connectionId,
  key_id: job.keyId,
  kind: job.kind,
  state: job.state,
  scopes: job.scopes,
  run: job.run,
  attempts: job.attempts,
  queued_at: job.queuedAt,
  lease_owner: job.leaseOwner,
  lease_until: job.leaseUntil,
  failure: job.failure,
  created_at: job.createdAt,
  started_at: job.startedAt,
  finished_at: job.finishedAt,
  updated_at: job.updatedAt,
  trace_parent: job.traceParent
})

const Count = Schema.Struct({ n: Millis })
const Returned = Schema.Struct({ id: Schema.String })

/**
 * A claim: one conditional UPDATE ... RETURNING of a claimable job. A job is a candidate unless another job
 * of its connection runs under a live lease; media jobs of a company run one at a time in queue order, and
 * not at all while one of them is paused. The job is the first candidate in queue order of, by preference,
 * (1) a company other than `avoidCompany` with no job under a live lease, (2) a company with no job under a
 * live lease, (3) any company: one sub-select per preference under COALESCE, each evaluated only when the
 * previous found nothing, so no sort ranks the candidates. Each walks the pending jobs in queue order and
 * checks a candidate against its connection's (and company's) unfinished jobs and against the running ones
 * (as many as there are workers), so a claim costs the same however many jobs have ended; SQLite is told
 * which indexes to walk (left alone it reads every queued job, checks each and sorts them, or reads a
 * company's whole history for its running jobs). The `state IN (...)` terms that look redundant repeat the
 * partial indexes' conditions, which is what lets a planner use them. Exported for the plan tests.
 */
export const claimStatement = (sql: SqlClient.SqlClient, request: JobStore.ClaimRequest) => {
  const now = request.nowMillis
  const sqlite = sql.onDialectOrElse({ pg: () => false, orElse: () => true })
  const idleCompany = sql`AND NOT EXISTS (
            SELECT 1 FROM jobs r ${sqlite ? sql`INDEXED BY jobs_by_state` : sql``}
            WHERE r.state = 'running' AND r.company_id = j.company_id AND r.lease_until > ${now}
          )`
  const candidate = (preference: Statement.Fragment) =>
    sql`SELECT j.id FROM jobs j ${sqlite ? sql`INDEXED BY jobs_pending` : sql``}
        WHERE j.state IN ('queued', 'running') AND (j.state = 'queued' OR j.lease_until <= ${now})
          ${preference}
          AND NOT EXISTS (
            SELECT 1 FROM jobs o
            WHERE o.company_id = j.company_id AND o.connection_id = j.connection_id AND o.state IN ('queued', 'running')
              AND o.id <> j.id AND o.state = 'running' AND o.lease_until > ${now}
          )
          AND (j.kind <> 'media' OR NOT EXISTS (
            SELECT 1 FROM jobs m
            WHERE m.company_id = j.company_id AND m.kind = 'media' AND m.state IN ('queued', 'running', 'paused')
              AND m.id <> j.id
              AND ((m.state = 'running' AND m.lease_until > ${now}) OR m.state = 'paused'
                OR (m.state IN ('queued', 'running') AND m.queue_seq < j.queue_seq))
          ))
        ORDER BY j.queue_seq
        LIMIT 1
        ${sqlite ? sql`` : sql`FOR UPDATE SKIP LOCKED`}`
  const preferences = [
    ...(request.avoidCompany === undefined ? [] : [sql`AND j.company_id <> ${request.avoidCompany} ${idleCompany}`]),
    idleCompany,
    sql``
  ]
  const chosen = sql.join(", ", false)(preferences.map((preference) => sql`(${candidate(preference)})`))
  const claimable = sql`(state = 'queued' OR (state = 'running' AND lease_until <= ${now}))`
  return sql`UPDATE jobs SET state = 'running', lease_owner = ${request.workerId}, lease_until = ${now + request.leaseMillis},
        attempts = attempts + 1, started_at = COALESCE(started_at, ${request.at}), updated_at = ${request.at}
      WHERE id = COALESCE(${chosen}) AND ${claimable}
      RETURNING ${sql.literal(columns)}`
}

/**
 * JobStore over any `SqlClient`. A claim is one conditional UPDATE ... RETURNING: on SQLite the single
 * writer makes it atomic; on PostgreSQL the candidate row is locked with FOR UPDATE SKIP LOCKED, so
 * concurrent claimers take different jobs without waiting. Every change to a claimed job is
 * conditional on the worker's lease.
 */
export const make: Effect.Effect<
  Context.Service.Shape<typeof JobStore.JobStore>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const encodeRow = Schema.encodeEffect(JobRow)

  // On PostgreSQL two transactions could both count 19 pending jobs; a transaction-scoped advisory lock
  // on the connection serialises the count and the write. SQLite's single writer already does.
  const lockConnection = (connectionId: string) =>
    sql.onDialectOrElse({
      pg: () => Effect.asVoid(sql`SELECT pg_advisory_xact_lock(hashtext(${`jobs:${connectionId}`}))`),
      orElse: () => Effect.void
    })

  const countPending = SqlSchema.findOne({
    Request: Schema.Struct({ company_id: Schema.String, connection_id: Schema.String }),
    Result: Count,
    execute: (scope) =>
      sql`SELECT COUNT(*) AS n FROM jobs
          WHERE company_id = ${scope.company_id} AND connection_id = ${scope.connection_id} AND state IN ('queued', 'running')`
  })

  // COUNT(*) always returns one row.
  const pendingCount = (scope: { company_id: string; connection_id: string }) =>
    countPending(scope).pipe(Effect.catchTag("NoSuchElementError", (error) => Effect.die(error)))

  const findOne = SqlSchema.findOneOption({
    Request: Schema.Struct({ company_id: Schema.String, connection_id: Schema.String, id: Schema.String }),
    Result: JobRow,
    execute: (key) =>
      sql`SELECT ${sql.literal(columns)} FROM jobs
          WHERE company_id = ${key.company_id} AND connection_id = ${key.connection_id} AND id = ${key.id}`
  })

  const decodeRows = Schema.decodeUnknownEffect(Schema.Array(JobRow))
  const decodeReturned = Schema.decodeUnknownEffect(Schema.Array(Returned))

  const owned = (id: string, workerId: string) => sql`id = ${id} AND lease_owner = ${workerId} AND state = 'running'`

  return JobStore.JobStore.of({
    insert: (job, maxPending) =>
      Effect.gen(function* () {
        yield* lockConnection(job.connectionId)
        const { n } = yield* pendingCount({ company_id: job.companyId, connection_id: job.connectionId })
        if (n >= maxPending) return false
        const row = yield* encodeRow(toRow(job))
        yield* sql`INSERT INTO jobs (${sql.literal(columns)}, queue_seq)
                   VALUES (${row.id}, ${row.company_id}, ${row.connection_id}, ${row.key_id}, ${row.kind}, ${row.state},
                           ${row.scopes}, ${row.run}, ${row.attempts}, ${row.queued_at}, ${row.lease_owner}, ${row.lease_until},
                           ${row.failure}, ${row.created_at}, ${row.started_at}, ${row.finished_at}, ${row.updated_at}, ${row.trace_parent},
                           (SELECT COALESCE(MAX(queue_seq), 0) + 1 FROM jobs))`
        return true
      }).pipe(refineErrors, span("JobStore.insert")),

    get: (scope, id) =>
      findOne({ company_id: scope.companyId, connection_id: scope.connectionId, id }).pipe(
        Effect.map(Option.map(toJob)),
        refineErrors,
        span("JobStore.get")
      ),

    list: (scope, query) =>
      Effect.gen(function* () {
        const rows = yield* sql`SELECT ${sql.literal(columns)} FROM jobs
            WHERE company_id = ${scope.companyId} AND connection_id = ${scope.connectionId}
              ${query.kind === undefined ? sql`` : sql`AND kind = ${query.kind}`}
              ${query.cursor === undefined ? sql`` : sql`AND id > ${query.cursor}`}
            ORDER BY id
            LIMIT ${query.limit}`
        return (yield* decodeRows(rows)).map(toJob)
      }).pipe(refineErrors, span("JobStore.list")),

    listAll: (query) =>
      Effect.gen(function* () {
        if (query.ids?.length === 0) return []
        const rows = yield* sql`SELECT ${sql.literal(columns)} FROM jobs
            WHERE 1 = 1
              ${query.state === undefined ? sql`` : sql`AND state = ${query.state}`}
              ${query.companyId === undefined ? sql`` : sql`AND company_id = ${query.companyId}`}
              ${query.kind === undefined ? sql`` : sql`AND kind = ${query.kind}`}
              ${query.id === undefined ? sql`` : sql`AND id = ${query.id}`}
              ${query.ids === undefined ? sql`` : sql`AND id IN ${inList(sql, query.ids)}`}
              ${query.cursor === undefined ? sql`` : sql`AND id > ${query.cursor}`}
            ORDER BY id
            LIMIT ${query.limit}`
        return (yield* decodeRows(rows)).map(toJob)
      }).pipe(refineErrors, span("JobStore.listAll")),

    requeue: (scope, id, request) =>
      Effect.gen(function* () {
        yield* lockConnection(scope.connectionId)
        const current = yield* findOne({ company_id: scope.companyId, connection_id: scope.connectionId, id })
        if (Option.isNone(current)) return { _tag: "NotInState", state: null } as const
        if (!request.from.includes(current.value.state))
          return { _tag: "NotInState", state: current.value.state } as const
        const { n } = yield* pendingCount({ company_id: scope.companyId, connection_id: scope.connectionId })
        if (n >= request.maxPending) return { _tag: "LimitReached" } as const
        const rows = yield* sql`UPDATE jobs
            SET state = 'queued', run = ${request.run}, scopes = ${JSON.stringify(request.scopes)}, queued_at = ${request.nowMillis},
                ${request.keyId === undefined ? sql`` : sql`key_id = ${request.keyId},`}
                ${request.keepPlace === true ? sql`` : sql`queue_seq = (SELECT COALESCE(MAX(queue_seq), 0) + 1 FROM jobs),`}
                lease_owner = NULL, lease_until = NULL, failure = NULL, finished_at = NULL, updated_at = ${request.at},
                trace_parent = ${request.traceParent}
            WHERE company_id = ${scope.companyId} AND connection_id = ${scope.connectionId} AND id = ${id}
              AND state IN ${inList(sql, request.from)}
            RETURNING ${sql.literal(columns)}`
        const [updated] = yield* decodeRows(rows)
        return updated === undefined
          ? ({ _tag: "NotInState", state: null } as const)
          : ({ _tag: "Requeued", job: toJob(updated) } as const)
      }).pipe(refineErrors, span("JobStore.requeue")),

    claim: (request) =>
      Effect.gen(function* () {
        const [row] = yield* decodeRows(yield* claimStatement(sql, request))
        return Option.map(Option.fromNullishOr(row), toJob)
      }).pipe(refineErrors, span("JobStore.claim")),

    heartbeat: (id, workerId, leaseUntil) =>
      Effect.gen(function* () {
        const rows = yield* sql`UPDATE jobs SET lease_until = ${leaseUntil} WHERE ${owned(id, workerId)} RETURNING id`
        return (yield* decodeReturned(rows)).length > 0
      }).pipe(refineErrors, span("JobStore.heartbeat")),

    finish: (id, workerId, result) =>
      Effect.gen(function* () {
        const rows = yield* sql`UPDATE jobs
            SET state = ${result.state}, failure = ${result.failure === null ? null : JSON.stringify(result.failure)},
                finished_at = ${result.at}, updated_at = ${result.at}, lease_owner = NULL, lease_until = NULL
            WHERE ${owned(id, workerId)}
            RETURNING id`
        return (yield* decodeReturned(rows)).length > 0
      }).pipe(refineErrors, span("JobStore.finish")),

    release: (id, workerId, at) =>
      Effect.gen(function* () {
        const rows =
          yield* sql`UPDATE jobs SET state = 'queued', lease_owner = NULL, lease_until = NULL, updated_at = ${at}
            WHERE ${owned(id, workerId)}
            RETURNING id`
        return (yield* decodeReturned(rows)).length > 0
      }).pipe(refineErrors, span("JobStore.release")),

    releaseAll: (at) =>
      Effect.gen(function* () {
        const rows =
          yield* sql`UPDATE jobs SET state = 'queued', lease_owner = NULL, lease_until = NULL, updated_at = ${at}
            WHERE state = 'running'
            RETURNING id`
        return (yield* decodeReturned(rows)).length
      }).pipe(refineErrors, span("JobStore.releaseAll"))
  })
})

/** JobStore over the `SqlClient` in context. */
export const layer: Layer.Layer<JobStore.JobStore, never, SqlClient.SqlClient> = Layer.effect(JobStore.JobStore, make)

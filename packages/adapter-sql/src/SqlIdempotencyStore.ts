import { Ids, IdempotencyStore } from "@catalog-sync/core"
import { SqlClient, type SqlError, SqlSchema } from "effect/sql"
import { type Context, Effect, Layer, Option, Schema } from "effect"
import { refineErrors } from "./internal/errors.js"
import { IdempotencyRow, Millis } from "./internal/rows.js"
import { span } from "./internal/spans.js"

const Key = Schema.Struct({ company_id: Ids.CompanyId, connection_id: Ids.ConnectionId, key: Schema.String })

const keyOf = (scope: IdempotencyStore.IdempotencyScope, key: string): typeof Key.Type => ({
  company_id: scope.companyId,
  connection_id: scope.connectionId,
  key
})

const scopeAttributes = (scope: IdempotencyStore.IdempotencyScope) => ({
  companyId: scope.companyId,
  connectionId: scope.connectionId
})

type DriverError = SqlError.SqlError | Schema.SchemaError

const inProgress: IdempotencyStore.Claim = { _tag: "InProgress" }

/**
 * What an existing row means for a claim, in the order of the in-memory reference: a record past its
 * retention is forgotten whatever it holds; otherwise another fingerprint is a mismatch, a completed
 * record is replayed, a running one holds while its lease lasts and is taken over after.
 */
const decide = (row: IdempotencyRow, request: IdempotencyStore.ClaimRequest): IdempotencyStore.Claim | "take over" => {
  if (row.created_at + request.retentionMillis <= request.nowMillis) return "take over"
  if (row.fingerprint !== request.fingerprint) return { _tag: "Mismatch" }
  if (row.state === "completed" && row.status !== null)
    return { _tag: "Replay", response: { status: row.status, body: row.response } }
  if (row.lease_until > request.nowMillis) return inProgress
  return "take over"
}

/** A claim re-reads the row after losing a race at most this many times; then it reports InProgress. */
const maxAttempts = 3

/** Completed records deleted per statement by `purge`, so that no statement holds the write lock for long. */
const purgeBatch = 1000

/**
 * IdempotencyStore over any `SqlClient`, its claims made in the write's transaction. Every step of a claim
 * is one statement that either changes the row or tells that it did not: the INSERT ... ON CONFLICT DO
 * NOTHING lets one of several requests start a new key (on PostgreSQL the others wait on the key's unique
 * index until it commits, then find its answer, or insert if it rolled back), and the conditional UPDATE
 * lets one of them take over an expired one (its WHERE is false once a taker has rewritten the row;
 * PostgreSQL re-checks it after waiting for a concurrent taker's row lock). Rows committed by older
 * versions, which claimed in a transaction of their own, may still be running; leases settle those.
 */
export const make: Effect.Effect<
  Context.Service.Shape<typeof IdempotencyStore.IdempotencyStore>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(
    Object.keys(IdempotencyRow.fields)
      .map((column) => `"${column}"`)
      .join(", ")
  )

  const insertRunning = SqlSchema.findAll({
    Request: IdempotencyRow,
    Result: Schema.Struct({ state: Schema.String }),
    execute: (row) => sql`INSERT INTO idempotency_keys ${sql.insert(row)} ON CONFLICT DO NOTHING RETURNING state`
  })

  const findRow = SqlSchema.findOneOption({
    Request: Key,
    Result: IdempotencyRow,
    execute: (key) =>
      sql`SELECT ${columns} FROM idempotency_keys
            WHERE company_id = ${key.company_id} AND connection_id = ${key.connection_id} AND "key" = ${key.key}`
  })

  // The WHERE repeats the two "take over" cases of `decide`; the row it writes satisfies neither (for a
  // positive lease and retention), so of several takers that read the same expired row only one matches.
  const takeOver = SqlSchema.findAll({
    Request: Schema.Struct({ row: IdempotencyRow, now: Millis, retainedSince: Millis }),
    Result: Schema.Struct({ state: Schema.String }),
    execute: ({ now, retainedSince, row }) =>
      sql`UPDATE idempotency_keys
            SET fingerprint = ${row.fingerprint}, state = 'running', lease_until = ${row.lease_until},
                created_at = ${row.created_at}, status = NULL, response = NULL
            WHERE company_id = ${row.company_id} AND connection_id = ${row.connection_id} AND "key" = ${row.key}
              AND (created_at <= ${retainedSince}
                   OR (fingerprint = ${row.fingerprint} AND state = 'running' AND lease_until <= ${now}))
            RETURNING state`
  })

  // The claim's lease end is its fencing token: every takeover writes a later one, so a request that lost
  // its claim matches no row here.
  const completeRow = SqlSchema.findAll({
    Request: Schema.Struct({ key: Key, token: Millis, status: Schema.Int, response: IdempotencyRow.fields.response }),
    Result: Schema.Struct({ state: Schema.String }),
    execute: ({ key, response, status, token }) =>
      sql`UPDATE idempotency_keys SET state = 'completed', status = ${status}, response = ${response}
            WHERE company_id = ${key.company_id} AND connection_id = ${key.connection_id} AND "key" = ${key.key}
              AND state = 'running' AND lease_until = ${token}
            RETURNING state`
  })

  const releaseRow = SqlSchema.void({
    Request: Schema.Struct({ key: Key, token: Millis }),
    execute: ({ key, token }) =>
      sql`DELETE FROM idempotency_keys
            WHERE company_id = ${key.company_id} AND connection_id = ${key.connection_id} AND "key" = ${key.key}
              AND state = 'running' AND lease_until = ${token}`
  })

  // Row values select one batch through a partial index (completed rows by created_at, running rows by
  // lease_until); both engines accept them.
  const purgeRows = SqlSchema.findAll({
    Request: Schema.Struct({ before: Millis, limit: Schema.Int, state: Schema.Literals(["completed", "running"]) }),
    Result: Schema.Struct({ state: Schema.String }),
    execute: ({ before, limit, state }) =>
      sql`DELETE FROM idempotency_keys
            WHERE (company_id, connection_id, "key") IN (
              SELECT company_id, connection_id, "key" FROM idempotency_keys
              WHERE state = ${state} AND ${state === "completed" ? sql`created_at` : sql`lease_until`} < ${before}
              LIMIT ${limit}
            )
            RETURNING state`
  })

  const claimOnce = (
    request: IdempotencyStore.ClaimRequest,
    attemptsLeft: number
  ): Effect.Effect<IdempotencyStore.Claim, DriverError> =>
    Effect.gen(function* () {
      const key = keyOf(request.scope, request.key)
      const fresh: IdempotencyRow = {
        ...key,
        fingerprint: request.fingerprint,
        state: "running",
        lease_until: request.nowMillis + request.leaseMillis,
        created_at: request.nowMillis,
        status: null,
        response: null
      }
      const started: IdempotencyStore.Claim = { _tag: "Started", token: fresh.lease_until }
      if ((yield* insertRunning(fresh)).length > 0) return started
      const current = yield* findRow(key)
      // Released between the insert and the read: try to start it again.
      if (Option.isNone(current)) return yield* retry(request, attemptsLeft)
      const decision = decide(current.value, request)
      if (decision !== "take over") return decision
      const taken = yield* takeOver({
        row: fresh,
        now: request.nowMillis,
        retainedSince: request.nowMillis - request.retentionMillis
      })
      if (taken.length > 0) return started
      // Another claimer (or the holder completing) changed the row since it was read; judge what it wrote.
      return yield* retry(request, attemptsLeft)
    })

  const retry = (
    request: IdempotencyStore.ClaimRequest,
    attemptsLeft: number
  ): Effect.Effect<IdempotencyStore.Claim, DriverError> =>
    attemptsLeft > 1 ? claimOnce(request, attemptsLeft - 1) : Effect.succeed(inProgress)

  const purgeFrom = (
    state: "completed" | "running",
    before: number,
    removed: number
  ): Effect.Effect<number, DriverError> =>
    Effect.flatMap(purgeRows({ before, limit: purgeBatch, state }), (rows) =>
      rows.length < purgeBatch ? Effect.succeed(removed + rows.length) : purgeFrom(state, before, removed + rows.length)
    )

  return IdempotencyStore.IdempotencyStore.of({
    claimsRollBack: true,
    claim: (request) =>
      claimOnce(request, maxAttempts).pipe(
        refineErrors,
        span("IdempotencyStore.claim", scopeAttributes(request.scope))
      ),

    complete: (scope, key, token, response) =>
      completeRow({
        key: keyOf(scope, key),
        token,
        status: response.status,
        // JSON has no undefined; a body-less response is stored (and replayed) as null.
        response: response.body === undefined ? null : response.body
      }).pipe(
        Effect.map((rows) => rows.length > 0),
        refineErrors,
        span("IdempotencyStore.complete", { ...scopeAttributes(scope), status: response.status })
      ),

    release: (scope, key, token) =>
      releaseRow({ key: keyOf(scope, key), token }).pipe(
        refineErrors,
        span("IdempotencyStore.release", scopeAttributes(scope))
      ),

    releaseAll: Effect.map(
      sql`DELETE FROM idempotency_keys WHERE state = 'running' RETURNING "key"`,
      (rows) => rows.length
    ).pipe(refineErrors, span("IdempotencyStore.releaseAll")),

    purge: (olderThanMillis) =>
      Effect.zipWith(
        purgeFrom("completed", olderThanMillis, 0),
        purgeFrom("running", olderThanMillis, 0),
        (a, b) => a + b
      ).pipe(refineErrors, span("IdempotencyStore.purge", { olderThanMillis }))
  })
})

/** IdempotencyStore over the `SqlClient` in context. */
export const layer: Layer.Layer<IdempotencyStore.IdempotencyStore, never, SqlClient.SqlClient> = Layer.effect(
  IdempotencyStore.IdempotencyStore,
  make
)

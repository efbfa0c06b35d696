import { join } from "node:path"
import { SqlRateLimiter } from "@catalog-sync/adapter-sql"
import { Accounts, type Ids, IdempotencyStore, RateLimiter } from "@catalog-sync/core"
import { SqlClient, Statement } from "effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer } from "effect"
import { layer as sqliteLayer } from "../src/index.js"
import { PersistenceFixtures } from "@catalog-sync/core/testing"
import { tempDir } from "./support.js"

const { companyId, connectionId, uuid } = PersistenceFixtures

const minute = 60_000
const hour = 3_600_000
const S = 1_750_000_000_000 - (1_750_000_000_000 % hour)

/** Two instances on one database file: two connections, each with the ports and a shared rate limiter. */
const twoInstances = Effect.gen(function* () {
  const filename = join(yield* tempDir, "catalog.db")
  const open = () =>
    Layer.build(
      SqlRateLimiter.layerWith({ cleanupEvery: 1 }).pipe(
        Layer.provideMerge(sqliteLayer({ filename, busyTimeout: "5 seconds" }))
      )
    )
  return [yield* open(), yield* open()] as const
})

const windowsOf = (bucket: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{
        window_start: number
        count: number
      }>`SELECT window_start, count FROM rate_windows WHERE bucket = ${bucket} ORDER BY window_start`
  )

describe("SQL accounts, idempotency and rate limits on SQLite", () => {
  it.effect("claims from two instances on one file start a key exactly once", () =>
    Effect.gen(function* () {
      const instances = yield* twoInstances
      const scope = { companyId: companyId(), connectionId: connectionId() }
      const claim = (i: number, nowMillis: number) =>
        Effect.flatMap(IdempotencyStore.IdempotencyStore, (store) =>
          store.claim({
            scope,
            key: "key-0001",
            fingerprint: "fp",
            nowMillis,
            leaseMillis: minute,
            retentionMillis: hour
          })
        ).pipe(Effect.provide(instances[i % 2]!))
      const tags = (claims: ReadonlyArray<{ readonly _tag: string }>) =>
        claims.filter((c) => c._tag === "Started").length
      expect(
        tags(
          yield* Effect.all(
            Array.from({ length: 20 }, (_, i) => claim(i, S)),
            { concurrency: "unbounded" }
          )
        )
      ).toBe(1)
      expect(
        tags(
          yield* Effect.all(
            Array.from({ length: 20 }, (_, i) => claim(i, S + minute)),
            { concurrency: "unbounded" }
          )
        )
      ).toBe(1)
    })
  )

  it.effect("claims interleaved statement by statement still start or take over a key exactly once", () =>
    Effect.gen(function* () {
      const [instance] = yield* twoInstances
      const store = yield* IdempotencyStore.IdempotencyStore.pipe(Effect.provide(instance))
      const scope = { companyId: companyId(), connectionId: connectionId() }
      const claim = (nowMillis: number) =>
        store.claim({
          scope,
          key: "key-0001",
          fingerprint: "fp",
          nowMillis,
          leaseMillis: minute,
          retentionMillis: hour
        })
      // Each fiber yields before every statement, so all 20 run their insert, then their read, then their
      // update: the conditional UPDATE alone decides who takes the key over.
      const interleaved = (nowMillis: number) =>
        Effect.all(
          Array.from({ length: 20 }, () => claim(nowMillis)),
          { concurrency: "unbounded" }
        ).pipe(
          Effect.provideService(Statement.CurrentTransformer, (statement) => Effect.as(Effect.yieldNow, statement)),
          Effect.map((claims) => claims.map((c) => c._tag).sort())
        )
      const once = ["InProgress", "Started"]
        .flatMap((tag) => Array.from({ length: tag === "Started" ? 1 : 19 }, () => tag))
        .sort()
      expect(yield* interleaved(S)).toEqual(once)
      expect(yield* interleaved(S + minute)).toEqual(once)
      // The taker of the second round holds the lease that started at S + minute.
      expect(yield* store.complete(scope, "key-0001", S + 2 * minute, { status: 200, body: "done" }, S + minute)).toBe(
        true
      )
      // Past the retention every claimer sees a forgotten key; still only one starts it again.
      expect(yield* interleaved(S + minute + hour)).toEqual(once)
    })
  )

  it.effect("rate windows are shared between instances, and ended windows are deleted", () =>
    Effect.gen(function* () {
      const instances = yield* twoInstances
      const [bucket, longBucket] = [`key:${uuid()}`, `company:${uuid()}`]
      const consume = (i: number, b: string, windowMillis: number, now: number) =>
        Effect.flatMap(RateLimiter.RateLimiter, (limiter) => limiter.consume(b, 100, windowMillis, now)).pipe(
          Effect.provide(instances[i % 2]!)
        )
      const states = yield* Effect.all(
        Array.from({ length: 10 }, (_, i) => consume(i, bucket, minute, S + 1)),
        { concurrency: "unbounded" }
      )
      expect(states.map((s) => s.remaining).sort((a, b) => a - b)).toEqual([90, 91, 92, 93, 94, 95, 96, 97, 98, 99])
      yield* consume(0, bucket, minute, S + minute + 1)
      const windows = (b: string) => windowsOf(b).pipe(Effect.provide(instances[0]))
      expect(yield* windows(bucket)).toEqual([
        { window_start: S, count: 10 },
        { window_start: S + minute, count: 1 }
      ])
      // Three minutes on, the current and the previous window are kept; older ones go.
      yield* consume(1, bucket, minute, S + 3 * minute + 1)
      expect(yield* windows(bucket)).toEqual([{ window_start: S + 3 * minute, count: 1 }])
      // An instance that has used an hour window keeps an hour of windows, so that no current hour window
      // is deleted by its cleanup.
      yield* consume(0, longBucket, hour, S + 3 * minute + 1)
      yield* consume(0, bucket, minute, S + 5 * minute + 1)
      expect(yield* windows(bucket)).toEqual([
        { window_start: S + 3 * minute, count: 1 },
        { window_start: S + 5 * minute, count: 1 }
      ])
      expect(yield* windows(longBucket)).toEqual([{ window_start: S, count: 1 }])
    })
  )

  it.effect("purge deletes in batches and counts every row", () =>
    Effect.gen(function* () {
      const [instance] = yield* twoInstances
      yield* Effect.gen(function* () {
        const store = yield* IdempotencyStore.IdempotencyStore
        const scope = { companyId: companyId(), connectionId: connectionId() }
        yield* Effect.forEach(
          Array.from({ length: 2_345 }, (_, i) => `key-${i}`),
          (key) =>
            store
              .claim({ scope, key, fingerprint: "fp", nowMillis: S, leaseMillis: minute, retentionMillis: hour })
              .pipe(
                Effect.flatMap((claim) =>
                  store.complete(
                    scope,
                    key,
                    claim._tag === "Started" ? claim.token : -1,
                    { status: 200, body: { key } },
                    S
                  )
                )
              ),
          { discard: true }
        )
        yield* store.claim({
          scope,
          key: "running",
          fingerprint: "fp",
          nowMillis: S,
          leaseMillis: minute,
          retentionMillis: hour
        })
        expect(yield* store.purge(S + 1)).toBe(2_345)
        const sql = yield* SqlClient.SqlClient
        expect(yield* sql<{ key: string; state: string }>`SELECT "key", state FROM idempotency_keys`).toEqual([
          { key: "running", state: "running" }
        ])
      }).pipe(Effect.provide(instance))
    })
  )

  it.effect("a key or a connection of a missing parent is a defect (foreign keys), not a stored orphan", () =>
    Effect.gen(function* () {
      const [instance] = yield* twoInstances
      yield* Effect.gen(function* () {
        const accounts = yield* Accounts.Accounts
        const orphan = yield* Effect.exit(
          accounts.saveConnection({
            id: connectionId(),
            company_id: companyId(),
            name: "ERP",
            enabled: true,
            created_at: "2026-01-01T00:00:00.000Z"
          })
        )
        expect(Exit.isFailure(orphan) && Cause.hasDies(orphan.cause)).toBe(true)
        const key = yield* Effect.exit(
          accounts.insertKey(
            {
              id: "0123456789abcdef01234567",
              company_id: companyId() as Ids.CompanyId,
              connection_id: connectionId(),
              name: "k",
              scopes: [],
              created_at: "2026-01-01T00:00:00.000Z",
              expires_at: "2026-02-01T00:00:00.000Z",
              revoked_at: null
            },
            "hash"
          )
        )
        expect(Exit.isFailure(key) && Cause.hasDies(key.cause)).toBe(true)
      }).pipe(Effect.provide(instance))
    })
  )
})

import { RateLimiter } from "@catalog-sync/core"
import { SqlClient, SqlSchema } from "effect/sql"
import { type Context, Effect, Layer, Option, Schema } from "effect"
import { refineErrors } from "./internal/errors.js"
import { Millis } from "./internal/rows.js"
import { span } from "./internal/spans.js"

/** Tuning of the shared rate limiter. */
export interface Options {
  /** Every how many calls (of this instance) ended windows are deleted. Default 1000. */
  readonly cleanupEvery?: number | undefined
}

/**
 * What a span may say of a bucket: its kind (`key`, `company`, `auth-failures`), never whose it is, a
 * key, a company or a client's address (an unsalted hash of an IPv4 address is undone by trying them all).
 */
const kindOf = (bucket: string) => {
  const colon = bucket.indexOf(":")
  return colon < 0 ? "other" : bucket.slice(0, colon)
}

/**
 * RateLimiter over any `SqlClient`: fixed windows counted in `rate_windows`, shared by every instance on
 * the database. Each request is one upsert that returns the new count, so concurrent requests of several
 * instances are all counted and none reads a stale count.
 *
 * Ended windows are deleted on one call in `cleanupEvery`, keeping the current and the previous window of
 * the widest window size this instance has used, so that a bucket of a longer window does not lose its
 * current count to the cleanup of a shorter one. The table stores no window size, so instances sharing it
 * should count every bucket in one window size (core's `checkRate` uses one minute); an instance that has
 * never used a longer size may delete such a window early, which only under-counts. A failed cleanup is
 * skipped, never the request's failure.
 */
export const make = (
  options: Options = {}
): Effect.Effect<Context.Service.Shape<typeof RateLimiter.RateLimiter>, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const cleanupEvery = Math.max(1, Math.floor(options.cleanupEvery ?? 1000))
    let calls = 0
    let widestWindow = 0

    // `rate_windows.count` is qualified: PostgreSQL finds a bare `count` ambiguous next to `excluded`.
    const bump = SqlSchema.findOneOption({
      Request: Schema.Struct({ bucket: Schema.String, window_start: Millis }),
      Result: Schema.Struct({ count: Schema.Int }),
      execute: ({ bucket, window_start }) =>
        sql`INSERT INTO rate_windows (bucket, window_start, count) VALUES (${bucket}, ${window_start}, 1)
            ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_windows.count + 1
            RETURNING count`
    })

    // The buckets counted in turn in one statement (PostgreSQL's data-modifying CTEs): bucket i + 1 is
    // counted only when bucket i's new count is within its limit; cN is null for a bucket not counted.
    const inOrderStatement = (buckets: ReadonlyArray<RateLimiter.RateBucket>, windowStart: number) => {
      const upserts = buckets.map((b, i) => {
        const name = sql.literal(`b${i}`)
        const source =
          i === 0
            ? sql`VALUES (${b.bucket}, CAST(${windowStart} AS BIGINT), 1)`
            : sql`SELECT ${b.bucket}, CAST(${windowStart} AS BIGINT), 1 FROM ${sql.literal(`b${i - 1}`)} WHERE count <= CAST(${buckets[i - 1]!.limit} AS BIGINT)`
        return sql`${name} AS (INSERT INTO rate_windows (bucket, window_start, count) ${source}
            ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_windows.count + 1
            RETURNING count)`
      })
      const counts = buckets.map((_, i) => sql`(SELECT count FROM ${sql.literal(`b${i}`)}) AS ${sql.literal(`c${i}`)}`)
      return sql<Record<string, number | string | null>>`WITH ${sql.csv(upserts)} SELECT ${sql.csv(counts)}`
    }

    const readCount = SqlSchema.findOneOption({
      Request: Schema.Struct({ bucket: Schema.String, window_start: Millis }),
      Result: Schema.Struct({ count: Schema.Int }),
      execute: ({ bucket, window_start }) =>
        sql`SELECT count FROM rate_windows WHERE bucket = ${bucket} AND window_start = ${window_start}`
    })

    /** Reads the bucket's current window; a window with no row has counted nothing. */
    const usage = (bucket: string, limit: number, windowMillis: number, nowMillis: number) => {
      const windowStart = RateLimiter.windowStartOf(windowMillis, nowMillis)
      return readCount({ bucket, window_start: windowStart }).pipe(
        Effect.map((row) =>
          RateLimiter.windowUsage(
            Option.match(row, { onNone: () => 0, onSome: (found) => found.count }),
            limit,
            windowStart,
            windowMillis,
            nowMillis
          )
        ),
        refineErrors,
        span("RateLimiter.usage", { bucket: kindOf(bucket), limit, windowMillis })
      )
    }

    const deleteEnded = SqlSchema.void({
      Request: Millis,
      execute: (before) => sql`DELETE FROM rate_windows WHERE window_start < ${before}`
    })

    const cleanup = (windowStart: number, windowMillis: number) =>
      Effect.suspend(() => {
        widestWindow = Math.max(widestWindow, windowMillis)
        calls = (calls + 1) % cleanupEvery
        if (calls !== 0) return Effect.void
        return deleteEnded(windowStart - widestWindow).pipe(
          refineErrors,
          Effect.catchTag("PersistenceError", () => Effect.void),
          span("RateLimiter.cleanup")
        )
      })

    const consume = (bucket: string, limit: number, windowMillis: number, nowMillis: number) => {
      const windowStart = nowMillis - (nowMillis % windowMillis)
      return bump({ bucket, window_start: windowStart }).pipe(
        Effect.flatMap(
          Option.match({
            onNone: () => Effect.die(new Error(`rate window upsert of ${bucket} returned no row`)),
            onSome: (row) =>
              Effect.succeed(RateLimiter.windowDecision(row.count, limit, windowStart, windowMillis, nowMillis))
          })
        ),
        refineErrors,
        Effect.tap(() => cleanup(windowStart, windowMillis)),
        span("RateLimiter.consume", { bucket: kindOf(bucket), limit, windowMillis })
      )
    }

    // SQLite: one statement per bucket, each in process.
    const one = RateLimiter.RateLimiter.of({ consume, consumeInOrder: RateLimiter.consumeOneByOne(consume), usage })
    return sql.onDialectOrElse({
      // Every request counts its key and its company: one statement instead of two, one round trip less.
      pg: () =>
        RateLimiter.RateLimiter.of({
          consume,
          usage,
          consumeInOrder: (buckets, windowMillis, nowMillis) => {
            if (buckets.length === 0) return Effect.succeed([])
            const windowStart = nowMillis - (nowMillis % windowMillis)
            return inOrderStatement(buckets, windowStart).pipe(
              Effect.map((rows) => {
                const states: Array<RateLimiter.RateState> = []
                for (let i = 0; i < buckets.length; i++) {
                  const count = rows[0]?.[`c${i}`]
                  if (count === null || count === undefined) break
                  states.push(
                    RateLimiter.windowDecision(Number(count), buckets[i]!.limit, windowStart, windowMillis, nowMillis)
                  )
                }
                return states
              }),
              Effect.filterOrElse(
                (states) => states.length > 0,
                () => Effect.die(new Error("rate window upsert returned no row"))
              ),
              refineErrors,
              Effect.tap(() => cleanup(windowStart, windowMillis)),
              span("RateLimiter.consumeInOrder", { buckets: buckets.length, windowMillis })
            )
          }
        }),
      orElse: () => one
    })
  })

/**
 * The database-shared limiter, for several instances serving one company. A single instance does better
 * with core's `InMemoryRateLimiter.layer`, which is why this is not part of the default ports layer.
 */
export const layer: Layer.Layer<RateLimiter.RateLimiter, never, SqlClient.SqlClient> = Layer.effect(
  RateLimiter.RateLimiter,
  make()
)

/** The limiter with its cleanup rate chosen. */
export const layerWith = (options: Options): Layer.Layer<RateLimiter.RateLimiter, never, SqlClient.SqlClient> =>
  Layer.effect(RateLimiter.RateLimiter, make(options))

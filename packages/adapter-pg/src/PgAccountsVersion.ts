import { AccountsCache } from "@catalog-sync/core"
import { SqlAccounts } from "@catalog-sync/adapter-sql"
import { Duration, Effect, Layer, Option, Redacted, Schedule } from "effect"
import pg from "pg"
import type { PgConfig } from "./PgConfig.js"

/** How often the listening connection proves it is alive; also the longest a cached key can be stale if a notification were lost. */
export const pingInterval = Duration.seconds(1)

const pingTimeout = Duration.seconds(2)

interface State {
  up: boolean
  /** Connections made: a new one may have missed notifications, so everything cached before is stale. */
  epoch: number
  notifications: number
  pings: number
}

/**
 * The account data's version on PostgreSQL: account writes announce themselves on a channel
 * (`SqlAccounts.accountsChannel`, delivered at their commit) and a connection of this instance listens
 * to it. The version moves with every notification, every reconnection and every successful ping of that
 * connection (each second), so a cached key is at most one ping old even if a notification were lost.
 * While the connection is down or unproven, the version is unknown and keys are read from the database.
 */
export const layer = (config: PgConfig): Layer.Layer<AccountsCache.AccountsVersion> =>
  Layer.scoped(
    AccountsCache.AccountsVersion,
    Effect.gen(function* () {
      const state: State = { up: false, epoch: 0, notifications: 0, pings: 0 }

      const listenOnce = Effect.acquireUseRelease(
        Effect.tryPromise(async () => {
          const client = new pg.Client({
            connectionString: Redacted.value(config.url),
            application_name: `${config.applicationName ?? "catalog-sync"} (accounts listener)`,
            keepAlive: true
          })
          client.on("error", () => {
            state.up = false
          })
          client.on("end", () => {
            state.up = false
          })
          client.on("notification", () => {
            state.notifications++
          })
          await client.connect()
          // A constant identifier of ours, not input.
          await client.query(`LISTEN ${SqlAccounts.accountsChannel}`)
          return client
        }),
        (client) =>
          Effect.gen(function* () {
            state.epoch++
            state.up = true
            // Pings until one fails or times out; then the connection is given up and made again.
            yield* Effect.tryPromise(() => client.query("SELECT 1")).pipe(
              Effect.timeoutFail({ duration: pingTimeout, onTimeout: () => new Error("ping timed out") }),
              Effect.tap(() => Effect.sync(() => void state.pings++)),
              Effect.filterOrFail(
                () => state.up,
                () => new Error("the listening connection closed")
              ),
              Effect.zipRight(Effect.sleep(pingInterval)),
              Effect.forever
            )
          }),
        (client) =>
          Effect.sync(() => {
            state.up = false
          }).pipe(Effect.zipRight(Effect.promise(() => client.end().catch(() => undefined))))
      )

      yield* Effect.forkScoped(
        listenOnce.pipe(
          Effect.catchAll(() => Effect.sync(() => void (state.up = false))),
          Effect.repeat(Schedule.spaced(Duration.millis(500)))
        )
      )

      return {
        current: Effect.sync(() =>
          state.up ? Option.some(`${state.epoch}.${state.notifications}.${state.pings}`) : Option.none()
        )
      }
    })
  )

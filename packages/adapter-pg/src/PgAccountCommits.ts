import { CommitVersion } from "@catalog-sync/core"
import { SqlAccounts } from "@catalog-sync/adapter-sql"
import { PgConnection } from "@effect/sql-pg"
import { Duration, Effect, Layer, Option, Queue, Schedule } from "effect"
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
 * The `CommitVersion` of the account data on PostgreSQL: account writes announce themselves on a channel
 * (`SqlAccounts.accountsChannel`, delivered at their commit) and a connection of this instance, outside
 * the pool (`PgConnection`, @effect/sql-pg's session), listens to it. The version moves with every
 * notification, every reconnection and every successful ping of that connection (each second), so a
 * cached key is at most one ping old even if a notification were lost. While the connection is down or
 * unproven, the version is unknown and keys are read from the database. Commits of other data do not
 * move it: it is for the accounts' cache alone (`AccountsCache`).
 */
export const layer = (config: PgConfig): Layer.Layer<CommitVersion.CommitVersion> =>
  Layer.effect(
    CommitVersion.CommitVersion,
    Effect.gen(function* () {
      const state: State = { up: false, epoch: 0, notifications: 0, pings: 0 }

      const listenOnce = Effect.scoped(
        Effect.gen(function* () {
          const connection = yield* PgConnection.make({
            url: config.url,
            applicationName: `${config.applicationName ?? "catalog-sync"} (accounts listener)`,
            connectTimeout: config.connectTimeout ?? Duration.seconds(10),
            keepAlive: Duration.seconds(30)
          })
          // Pinned, so that the pings run on the session that listens.
          const session = yield* connection.pin
          const notifications = yield* session.listen(SqlAccounts.accountsChannel)
          state.epoch++
          state.up = true
          // Ends with the listening connection (its queue fails with the connection's error).
          const receive = Effect.forever(Effect.map(Queue.take(notifications), () => void state.notifications++))
          // Pings until one fails or times out; then the connection is given up and made again.
          const pings = session
            .query("SELECT 1", [], false)
            .pipe(
              Effect.timeoutOrElse({ duration: pingTimeout, orElse: () => Effect.fail(new Error("ping timed out")) }),
              Effect.andThen(Effect.sync(() => void state.pings++)),
              Effect.andThen(Effect.sleep(pingInterval)),
              Effect.forever
            )
          return yield* Effect.raceFirst(receive, pings)
        })
      ).pipe(Effect.ensuring(Effect.sync(() => void (state.up = false))))

      yield* Effect.forkScoped(listenOnce.pipe(Effect.ignore, Effect.repeat(Schedule.spaced(Duration.millis(500)))))

      return CommitVersion.CommitVersion.of({
        current: Effect.sync(() =>
          state.up ? Option.some(`${state.epoch}.${state.notifications}.${state.pings}`) : Option.none()
        )
      })
    })
  )

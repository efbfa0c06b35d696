import { AccountsCache } from "@catalog-sync/core"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import { SqliteCommits } from "./SqliteCommits.js"

/**
 * The account data's version on SQLite: `PRAGMA data_version` of the server's connection, which moves
 * whenever another connection commits (the admin CLI, another process's admin use cases); writes on this
 * process's own connection go through the cache, which counts them itself. A read that fails says
 * "unknown", and the cache then reads the data itself. While nothing at all was committed since it was
 * last read (`SqliteCommits`), the version is the one read then, without a statement.
 */
export const layer: Layer.Layer<AccountsCache.AccountsVersion, never, SqlClient.SqlClient | SqliteCommits> =
  Layer.effect(
    AccountsCache.AccountsVersion,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const commits = yield* SqliteCommits
      const read = sql<{ readonly data_version: number }>`PRAGMA data_version`.pipe(
        Effect.map((rows) => (rows[0] === undefined ? Option.none() : Option.some(String(rows[0].data_version)))),
        Effect.orElseSucceed(() => Option.none<string>())
      )
      let seen: { readonly commits: number; readonly version: Option.Option<string> } | undefined
      return {
        current: Effect.withFiberRuntime((fiber) => {
          // Inside a transaction the server's connection reads that transaction's snapshot, which may be
          // older than the side connection's view: read through, keep nothing.
          if (Context.getOption(fiber.currentContext, SqlClient.TransactionConnection)._tag === "Some") return read
          // Read before the version, so that a commit in between makes the next request read it again.
          const commit = commits.current()
          if (commit !== undefined && seen?.commits === commit) return Effect.succeed(seen.version)
          return Effect.tap(read, (version) => {
            seen = commit !== undefined && Option.isSome(version) ? { commits: commit, version } : undefined
          })
        })
      }
    })
  )

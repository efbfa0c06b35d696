import { CommitVersion } from "@catalog-sync/core"
import { SqlTransactor } from "@catalog-sync/adapter-sql"
import { SqlClient } from "effect/sql"
import { Effect, Layer, Option } from "effect"
import { SqliteDataVersion } from "./SqliteClient.js"

/**
 * The `CommitVersion` of every commit, this client's writer included: the reader's `PRAGMA data_version`.
 * Unknown inside a transaction of this fiber, whose reads see its own uncommitted writes, and for an
 * in-memory database (no reader). For reads kept until anything at all commits (`KeptReads`).
 */
export const anyCommit: Layer.Layer<CommitVersion.CommitVersion, never, SqliteDataVersion | SqlClient.SqlClient> =
  Layer.effect(
    CommitVersion.CommitVersion,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const versions = yield* SqliteDataVersion
      return CommitVersion.CommitVersion.of({
        current: Effect.map(SqlTransactor.transactionOpen(sql), (open) => {
          const version = open ? undefined : versions.anyCommit()
          return version === undefined ? Option.none() : Option.some(String(version))
        })
      })
    })
  )

/**
 * The `CommitVersion` of other connections' commits (the admin CLI, another process's admin use cases):
 * the writer's `PRAGMA data_version`. Writes through this process's own client are not seen: the cache
 * given it must count them itself, as `AccountsCache` does. While nothing at all was committed since it
 * was last read (the reader's version), the version is the one read then, without reading the writer.
 * While a transaction holds the writer, or a read fails, it is unknown.
 */
export const otherCommits: Layer.Layer<CommitVersion.CommitVersion, never, SqliteDataVersion> = Layer.effect(
  CommitVersion.CommitVersion,
  Effect.gen(function* () {
    const versions = yield* SqliteDataVersion
    let seen: { readonly anyCommit: number; readonly version: Option.Option<string> } | undefined
    return CommitVersion.CommitVersion.of({
      current: Effect.suspend(() => {
        // Read before the writer's, so that a commit in between makes the next lookup read it again.
        const anyCommit = versions.anyCommit()
        if (anyCommit !== undefined && seen?.anyCommit === anyCommit) return Effect.succeed(seen.version)
        return Effect.map(versions.otherCommits, (read) => {
          const version = Option.map(read, String)
          seen = anyCommit !== undefined && Option.isSome(version) ? { anyCommit, version } : undefined
          return version
        })
      })
    })
  })
)

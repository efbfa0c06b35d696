import { AccountsCache } from "@catalog-sync/core"
import { Effect, Layer, Option } from "effect"
import { SqliteDataVersion } from "./SqliteClient.js"

/**
 * The account data's version on SQLite: `PRAGMA data_version` of the client's writer, which moves
 * whenever another connection commits (the admin CLI, another process's admin use cases); writes through
 * this process's own client go through the cache, which counts them itself. While nothing at all was
 * committed since it was last read (the reader's version), the version is the one read then, without
 * reading the writer. While a transaction holds the writer, or a read fails, the version is unknown and
 * the cache reads the data itself.
 *
 * `AccountsVersion` is a reference (its default: always unknown): the layer sets it, and so provides no
 * service of its own.
 */
export const layer: Layer.Layer<never, never, SqliteDataVersion> = Layer.effect(
  AccountsCache.AccountsVersion,
  Effect.gen(function* () {
    const versions = yield* SqliteDataVersion
    let seen: { readonly anyCommit: number; readonly version: Option.Option<string> } | undefined
    return {
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
    }
  })
)

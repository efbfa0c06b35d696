import { AccountsCache } from "@catalog-sync/core"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"

/**
 * The account data's version on SQLite: `PRAGMA data_version`, which moves whenever another connection
 * commits (the admin CLI, another process's admin use cases); writes on this process's own connection go
 * through the cache, which counts them itself. A read that fails says "unknown", and the cache then reads
 * the data itself.
 */
export const layer: Layer.Layer<AccountsCache.AccountsVersion, never, SqlClient.SqlClient> = Layer.effect(
  AccountsCache.AccountsVersion,
  Effect.map(SqlClient.SqlClient, (sql) => ({
    current: sql<{ readonly data_version: number }>`PRAGMA data_version`.pipe(
      Effect.map((rows) => (rows[0] === undefined ? Option.none() : Option.some(String(rows[0].data_version)))),
      Effect.orElseSucceed(() => Option.none<string>())
    )
  }))
)

import { CommittedReads } from "@catalog-sync/adapter-sql"
import { ChangeLog } from "@catalog-sync/core"
import { SqlClient } from "effect/sql"
import { Effect, Layer } from "effect"
import { SqliteDataVersion } from "./SqliteClient.js"

/** Companies whose head is kept at once; a full table starts over (it refills from the next polls). */
const maxEntries = 10_000

/**
 * The change log with each company's head kept while nothing is committed to the database (the reader's
 * `PRAGMA data_version`): a feed poll with an up-to-date cursor, what connectors repeat every few
 * seconds, then runs no statement at all. Outside a transaction the head is read from committed data
 * (the client's reader); inside one it is always read, since that transaction's own appends are not
 * committed.
 */
export const layer: Layer.Layer<
  ChangeLog.ChangeLog,
  never,
  ChangeLog.ChangeLog | SqliteDataVersion | SqlClient.SqlClient
> = Layer.effect(
  ChangeLog.ChangeLog,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const log = yield* ChangeLog.ChangeLog
    const versions = yield* SqliteDataVersion
    const heads = CommittedReads.committedReads<number>({ maxBytes: maxEntries, maxEntryBytes: 1, maxEntries })
    const readAndKeep = (companyId: ChangeLog.ChangeEntry["companyId"]) => {
      // Read before the head, so that a commit in between makes the next poll read it again.
      const anyCommit = versions.anyCommit()
      if (anyCommit === undefined) return log.head(companyId)
      const known = heads.get(companyId, anyCommit)
      if (known !== undefined) return Effect.succeed(known)
      return Effect.tap(log.head(companyId), (head) => Effect.sync(() => heads.set(companyId, anyCommit, head, 1)))
    }
    return ChangeLog.ChangeLog.of({
      ...log,
      head: (companyId) =>
        Effect.flatMap(Effect.serviceOption(sql.transactionService), (transaction) =>
          transaction._tag === "Some" ? log.head(companyId) : readAndKeep(companyId)
        )
    })
  })
)

import { ChangeLog } from "@catalog-sync/core"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { SqliteCommits } from "./SqliteCommits.js"

/** Companies whose head is kept at once; a full table starts over (it refills from the next polls). */
const maxEntries = 10_000

/**
 * The change log with each company's head read from committed data on the side connection and kept while
 * nothing is committed to the database: a feed poll with an up-to-date cursor, what connectors repeat
 * every few seconds, then runs no statement on the server's connection at all.
 * Inside a transaction the head is always read, since that transaction's own appends are not committed.
 * Without `SqliteCommits` in context (another engine) the log is left as it is.
 */
export const layer: Layer.Layer<ChangeLog.ChangeLog, never, ChangeLog.ChangeLog> = Layer.effect(
  ChangeLog.ChangeLog,
  Effect.gen(function* () {
    const log = yield* ChangeLog.ChangeLog
    const found = yield* Effect.serviceOption(SqliteCommits)
    if (found._tag === "None") return log
    const commits = found.value
    // SqlChangeLog's head query, on the side connection: the server's own connection may be inside another
    // request's transaction, whose appends must not be seen (nor kept) before they commit.
    const committedHead = (companyId: string): unknown =>
      (
        commits.read("SELECT COALESCE(MAX(company_position), 0) AS head FROM changes WHERE company_id = ?", [
          companyId
        ])?.[0] as { readonly head: unknown } | undefined
      )?.head
    const heads = new Map<string, { readonly commits: number; readonly head: number }>()
    const readAndKeep = (companyId: ChangeLog.ChangeEntry["companyId"]) => {
      // Read before the head, so that a commit in between makes the next poll read it again.
      const commit = commits.current()
      if (commit === undefined) return log.head(companyId)
      const known = heads.get(companyId)
      if (known !== undefined && known.commits === commit) return Effect.succeed(known.head)
      const head = committedHead(companyId)
      if (typeof head !== "number") return log.head(companyId)
      if (heads.size >= maxEntries) heads.clear()
      heads.set(companyId, { commits: commit, head })
      return Effect.succeed(head)
    }
    return ChangeLog.ChangeLog.of({
      ...log,
      head: (companyId) =>
        Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (transaction) =>
          transaction._tag === "Some" ? log.head(companyId) : readAndKeep(companyId)
        )
    })
  })
)

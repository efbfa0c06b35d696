import { Context } from "effect"

/**
 * Reads made outside any transaction, answered from committed data by a means cheaper than the
 * `SqlClient`'s own statement path (on SQLite, a second connection read synchronously: see
 * adapter-sqlite's `SqliteCommits`). The SQL adapters use it when a driver provides it; without it, every
 * statement runs through the client.
 */
export class CommittedReads extends Context.Tag("@catalog-sync/adapter-sql/CommittedReads")<
  CommittedReads,
  {
    /**
     * The rows of one compiled read (a SELECT or WITH query that writes nothing), or undefined when this
     * reader does not serve it (a statement that writes, a busy database, any failure): the statement then
     * runs through the client, which reports its errors as usual.
     */
    readonly read: (sql: string, params: ReadonlyArray<unknown>) => ReadonlyArray<object> | undefined
  }
>() {}

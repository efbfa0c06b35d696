/**
 * What each request costs in statements, BEGIN and COMMIT included, as the server runs them (its `sql`
 * override wraps the connections of the server's own client, so every statement is seen: on SQLite the
 * reads its reader answers too). `statements.e2e.test.ts` holds the server to these counts, and
 * `test/docs-statements.test.ts` holds the request traces of docs/architecture.md to them, so that the
 * guide and the server cannot drift apart. The counts are exact so that a statement added to a hot path
 * shows here and is a decision. Key lookups are left out of them: they are cached while the account data's
 * version stays, which on PostgreSQL moves with each second's ping of the listening connection, so whether
 * a request reads its key depends on the time (each request reads it at most once, a job once more).
 * PostgreSQL adds the shared rate-limit windows per request (the key's and the company's, in one
 * statement); a change-feed append is one statement on both engines (on PostgreSQL it also moves the
 * company's head row), the transaction's last before COMMIT. A list page reads the feed's head (for
 * `change_cursor`), then its records with their external ids in one statement. On SQLite the company's
 * head is kept while nothing commits (`KeptReads`): a caught-up feed poll runs none, and a record
 * read by id is kept the same way: the same GET again runs none. A write looks up its own external id and
 * its references' in one statement; on PostgreSQL a new record and its link rows are one statement too.
 * `importOfOne` is a one-record import from its submission to the end of its job, `importOfBatch` the same
 * with a full batch of new records (25, one transaction): set-based writes make a batch cost the
 * statements of one record. A job that ends within a third of its lease renews no lease (the claim set it).
 */
export const statementCounts = {
  sqlite: {
    getById: 1,
    getByIdAgain: 0,
    list: 2,
    feedPoll: 0,
    create: 9,
    update: 8,
    importOfOne: 21,
    importOfBatch: 21
  },
  postgres: {
    getById: 2,
    getByIdAgain: 2,
    list: 3,
    feedPoll: 2,
    create: 9,
    update: 9,
    importOfOne: 23,
    importOfBatch: 23
  }
} as const

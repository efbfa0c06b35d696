import type { Logged } from "./StatementLog.js"

/**
 * Round trips to PostgreSQL, read from a `statementLog`: every statement is one, BEGIN and COMMIT
 * included, since the client (@effect/sql-pg) sends a statement's messages together and the next statement of a
 * connection only once the answer is in.
 */
export interface RoundTrips {
  /** Statements sent and answered. */
  readonly roundTrips: number
  /**
   * Inside transactions, from the statement that takes a lock on the whole company to COMMIT, both
   * counted: the lock is held over one round trip fewer, plus the commit's flush. Other writes of the
   * company, on any instance, wait for it.
   */
  readonly underCompanyLock: number
  /** The same for a lock on one connection (the job queue's, taken to count its pending jobs). */
  readonly underConnectionLock: number
  /**
   * Statements outside a transaction that write a row of the whole company (its rate window): the row is
   * locked while the statement and its commit run on the server, over no round trip.
   */
  readonly companyRowsAlone: number
}

/** Whose statements these are: the lock keys and buckets name the company and the connection. */
export interface Scope {
  readonly companyId: string
  readonly connectionId: string
}

/** The lock a statement takes, held until its transaction ends. */
const lockOf = (statement: Logged, scope: Scope): "company" | "connection" | undefined => {
  // The change log's append moves the company's row of `change_heads` (SqlChangeLog.ts).
  if (statement.text.includes("INSERT INTO change_heads")) return "company"
  if (statement.text.startsWith("SELECT pg_advisory_xact_lock(")) {
    const key = String(statement.params[0])
    // The catalog repository's rule locks: `bundles:`, `pricing:`, `categories:` and the company's id.
    if (key.endsWith(`:${scope.companyId}`)) return "company"
    // The job store's, around the count of a connection's pending jobs: `jobs:` and the connection's id.
    if (key === `jobs:${scope.connectionId}`) return "connection"
  }
  return undefined
}

/** The rate windows' upsert: one bucket's, or several counted in turn in one statement (a CTE per bucket). */
const isRateWindows = (statement: Logged) =>
  statement.text.startsWith("INSERT INTO rate_windows ") ||
  (statement.text.startsWith("WITH b0 AS (INSERT INTO rate_windows ") &&
    statement.text.includes("SELECT (SELECT count"))

const rateBuckets = (statement: Logged) =>
  statement.params
    .filter((param): param is string => typeof param === "string" && /^(key|company):/.test(param))
    .map((bucket) => bucket.split(":")[0])
    .join(" and ")

const ends = (statement: Logged) => statement.text === "COMMIT" || statement.text === "ROLLBACK"

/** The round trips of these statements, and those made under each lock. */
export const roundTrips = (statements: ReadonlyArray<Logged>, scope: Scope): RoundTrips => {
  const open = new Map<number, { company: boolean; connection: boolean }>()
  let underCompanyLock = 0
  let underConnectionLock = 0
  let companyRowsAlone = 0
  for (const statement of statements) {
    if (statement.text === "BEGIN") open.set(statement.connection, { company: false, connection: false })
    const transaction = open.get(statement.connection)
    if (transaction === undefined) {
      if (isRateWindows(statement) && statement.params.includes(`company:${scope.companyId}`)) companyRowsAlone++
      continue
    }
    const lock = lockOf(statement, scope)
    if (lock !== undefined) transaction[lock] = true
    if (transaction.company) underCompanyLock++
    if (transaction.connection) underConnectionLock++
    if (ends(statement)) open.delete(statement.connection)
  }
  return { roundTrips: statements.length, underCompanyLock, underConnectionLock, companyRowsAlone }
}

const labels: ReadonlyArray<readonly [RegExp, string | ((statement: Logged) => string)]> = [
  [/^(BEGIN|COMMIT|ROLLBACK)$/, (s) => s.text],
  [/^SAVEPOINT /, "SAVEPOINT"],
  [/^INSERT INTO rate_windows /, (s) => `rate window of the ${String(s.params[0]).split(":")[0]}`],
  [/^WITH b0 AS \(INSERT INTO rate_windows /, (s) => `rate windows of the ${rateBuckets(s)}`],
  [/^SELECT pg_advisory_xact_lock\(/, (s) => `advisory lock ${String(s.params[0]).split(":")[0]}`],
  [/^INSERT INTO idempotency_keys /, "idempotency claim"],
  [/^UPDATE idempotency_keys SET state = 'completed'/, "idempotency completion"],
  [/^SELECT external_id, record_id FROM mappings /, (s) => `mapping lookup (${String(s.params[2])})`],
  [/^SELECT 0 AS lookup, external_id, record_id FROM mappings /, "mapping lookups (the record's and its references')"],
  [/^INSERT INTO mappings /, "mappings insert"],
  [/^SELECT .* FROM catalog_records r WHERE /, "record read"],
  [/^INSERT INTO catalog_records /, "records insert"],
  [
    /^WITH inserted AS \(INSERT INTO catalog_records .*\) INSERT INTO "record_categories" /s,
    "record insert with its category rows"
  ],
  [/^UPDATE catalog_records /, "record update"],
  [/^INSERT INTO "record_categories" /, "category rows insert"],
  [/INSERT INTO change_heads .* INSERT INTO changes /, "change append (company head row)"],
  [/^SELECT COALESCE\(MAX\(company_position\), 0\) AS position FROM changes /, "feed head read"],
  [/^SELECT COUNT\(\*\) AS n FROM jobs /, "pending jobs count"],
  [/^INSERT INTO jobs /, "job insert"],
  [/^UPDATE jobs SET state = 'running'/, "job claim"],
  [/^UPDATE jobs SET lease_until = /, "lease check"],
  [/^UPDATE jobs SET state = \$1/, "job end"],
  [/^INSERT INTO import_records /, "import records insert"],
  [/^SELECT .* FROM import_records WHERE job_id = /, "import records read"],
  [/^UPDATE import_records SET status = 'applied'/, "import records applied"]
]

/** A short name for a statement, for pinning a request's statements in order; the text's start if unknown. */
export const label = (statement: Logged): string => {
  const found = labels.find(([pattern]) => pattern.test(statement.text))
  if (found === undefined) return statement.text.slice(0, 60)
  return typeof found[1] === "string" ? found[1] : found[1](statement)
}

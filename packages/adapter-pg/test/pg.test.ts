import { SqlChangeLog, SqlErrors, SqlJobStore } from "@catalog-sync/adapter-sql"
import { CatalogRepository, ChangeLog, type Ids, JobStore, Mappings, Transactor } from "@catalog-sync/core"
import { PersistenceFixtures } from "@catalog-sync/core/testing"
import { SqlClient, SqlError } from "effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Cause, Context, Effect, Fiber, Layer, Option, Redacted, Result } from "effect"
import { layer as pgLayer, Migrations, PgLive } from "../src/index.js"
import { preparedStatements } from "../src/PgLive.js"
import { shared, unavailableReason } from "../src/testing.js"

const skip = unavailableReason()
if (skip !== undefined) console.warn(`\n*** ${skip} ***\n`)

const cluster = shared()
const { change, companyId, connectionId, recordId, uuid } = PersistenceFixtures

const record = (company: Ids.CompanyId, id: Ids.RecordId, revision = 1) =>
  PersistenceFixtures.record(company, { id, revision, data: { name: `rev ${revision}` } })

/** Two "instances": separate pools (and port layers) on one database. */
const twoInstances = (url: string) =>
  Effect.all([
    Layer.build(pgLayer({ url: Redacted.make(url), poolSize: 4 })),
    Layer.build(pgLayer({ url: Redacted.make(url), poolSize: 4 }))
  ])

const raise = (code: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.unsafe(`DO $$ BEGIN RAISE EXCEPTION 'test' USING ERRCODE = '${code}'; END $$`)
  ).pipe(
    Effect.flip,
    Effect.map((error) => (error instanceof SqlError.SqlError ? error : undefined))
  )

describe.skipIf(skip !== undefined)("PostgreSQL", () => {
  layer(cluster.layer, { timeout: 60_000 })("adapter-pg", (it) => {
    it.effect("several instances migrating one empty database at once all start, and each migration runs once", () =>
      Effect.gen(function* () {
        const url = yield* cluster.freshDatabase
        const contexts = yield* Effect.all(
          Array.from({ length: 4 }, () => Layer.build(PgLive({ url: Redacted.make(url), poolSize: 2 }))),
          { concurrency: "unbounded" }
        )
        const sql = Context.get(contexts[0]!, SqlClient.SqlClient)
        const applied = yield* sql<{
          migration_id: number
          name: string
        }>`SELECT migration_id, name FROM effect_sql_migrations ORDER BY migration_id`
        expect(applied).toEqual(
          Object.keys(Migrations.migrations).map((key) => ({
            migration_id: Number(key.slice(0, 4)),
            name: key.slice(5)
          }))
        )
        // A later start finds nothing to do.
        expect(yield* Migrations.migrate.pipe(Effect.provideService(SqlClient.SqlClient, sql))).toEqual([])
        const tables = yield* sql<{ table_name: string }>`
          SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`
        expect(tables.map((t) => t.table_name)).toEqual([
          "api_keys",
          "audit_log",
          "catalog_records",
          "change_heads",
          "changes",
          "companies",
          "company_domains",
          "connection_locations",
          "connections",
          "effect_sql_migrations",
          "idempotency_keys",
          "import_records",
          "jobs",
          "locations",
          "mappings",
          "media",
          "panel_sessions",
          "panel_users",
          "rate_windows",
          "record_categories",
          "record_components",
          "sign_in_failures",
          "stock_balances",
          "stock_events",
          "stock_items"
        ])
      })
    )

    it.effect("ids compare in byte order whatever the database collation", () =>
      Effect.gen(function* () {
        const context = yield* Layer.build(cluster.layerOf())
        const sql = Context.get(context, SqlClient.SqlClient)
        const columns = yield* sql<{ table_name: string; column_name: string; collation_name: string | null }>`
          SELECT table_name, column_name, collation_name FROM information_schema.columns
          WHERE table_schema = 'public' AND data_type = 'text' AND (column_name = 'id' OR column_name LIKE '%\\_id')`
        expect(columns.length).toBeGreaterThan(20)
        expect(columns.filter((c) => c.collation_name !== "C")).toEqual([])
        // '-' sorts before the digits in byte order; most natural-language collations ignore it.
        const sorted = yield* sql<{ id: string }>`
          SELECT id FROM (VALUES ('a-b' COLLATE "C"), ('a0'), ('ab')) AS v (id) ORDER BY id`
        expect(sorted.map((r) => r.id)).toEqual(["a-b", "a0", "ab"])
      })
    )

    it.effect(
      "driver failures map as SqlErrors says: conflicts and lost connections are retryable, violations are recognised",
      () =>
        Effect.gen(function* () {
          const context = yield* Layer.build(cluster.layerOf())
          const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => Effect.provide(effect, context)
          for (const code of ["40001", "40P01", "55P03", "57014"]) {
            const error = yield* run(raise(code))
            expect([code, error && SqlErrors.classify(error)]).toEqual([code, "retryable"])
          }
          const sql = Context.get(context, SqlClient.SqlClient)
          yield* sql`CREATE TABLE uniq (id TEXT PRIMARY KEY)`
          yield* sql`INSERT INTO uniq VALUES ('x')`
          const duplicate = yield* Effect.flip(sql`INSERT INTO uniq VALUES ('x')`)
          expect(SqlErrors.isUniqueViolation(duplicate)).toBe(true)
          expect(SqlErrors.classify(duplicate)).toBe("defect")
          // Text PostgreSQL cannot hold, as a bound value and in a filter: refused, not a defect (no 500).
          for (const statement of [
            sql`INSERT INTO uniq VALUES (${"a\u0000b"})`,
            sql`SELECT id FROM uniq WHERE id = ${"\u0000"}`
          ]) {
            const refused = yield* Effect.flip(statement)
            expect(SqlErrors.classify(refused)).toBe("refused")
            expect(yield* Effect.flip(SqlErrors.fromSqlError(refused))).toMatchObject({
              _tag: "PersistenceError",
              retryable: false
            })
          }
        })
    )

    it.effect(
      "a connection killed inside a transaction fails the transaction as retryable (a 503), not as a defect",
      () =>
        Effect.gen(function* () {
          const url = yield* cluster.freshDatabase
          const context = yield* Layer.build(pgLayer({ url: Redacted.make(url), poolSize: 3 }))
          const sql = Context.get(context, SqlClient.SqlClient)
          const transactor = Context.get(context, Transactor.Transactor)
          // The failing statement's rollback then fails too (the connection is gone), which effect/sql turns into a defect.
          const exit = yield* Effect.exit(
            transactor.withTransaction(
              Effect.gen(function* () {
                const [own] = yield* sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`
                yield* Effect.forkDetach(
                  Effect.provide(
                    Effect.flatMap(SqlClient.SqlClient, (other) => other`SELECT pg_terminate_backend(${own!.pid})`),
                    context
                  )
                )
                // Real time (the test clock does not move): the other connection needs it to end this one.
                yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 300)))
                yield* sql`SELECT 1`
              }).pipe(Effect.catch(SqlErrors.fromSqlError))
            )
          )
          expect(exit._tag).toBe("Failure")
          const failure = exit._tag === "Failure" ? Option.getOrUndefined(Cause.findErrorOption(exit.cause)) : undefined
          expect(failure).toMatchObject({ _tag: "PersistenceError", retryable: true })
          // The pool recovers: the next transaction runs on a fresh connection.
          expect(yield* transactor.withTransaction(sql<{ one: number }>`SELECT 1 AS one`)).toEqual([{ one: 1 }])
        })
    )

    it.effect("a statement past the statement timeout is cancelled and reported as retryable", () =>
      Effect.gen(function* () {
        const url = yield* cluster.freshDatabase
        const context = yield* Layer.build(pgLayer({ url: Redacted.make(url), statementTimeout: "100 millis" }))
        const sql = Context.get(context, SqlClient.SqlClient)
        const error = yield* Effect.flip(sql`SELECT pg_sleep(2)`)
        expect(SqlErrors.classify(error)).toBe("retryable")
      })
    )

    // Regression: @effect/sql-pg 3 (node-postgres) cancelled an interrupted statement with pg_cancel_backend
    // through the pool; that statement could run after the connection had gone to another request and cancel
    // that request's statement (a 503 for a client that did nothing wrong). @effect/sql-pg 4 drains the
    // interrupted statement on its own connection, cancels it for that session only, and retires the session.
    it.effect(
      "an interrupted statement is cancelled on its own connection only; the other requests' statements run",
      () =>
        Effect.gen(function* () {
          const url = yield* cluster.freshDatabase
          const context = yield* Layer.build(PgLive({ url: Redacted.make(url), poolSize: 2 }))
          const sql = Context.get(context, SqlClient.SqlClient)
          const other = yield* Effect.forkChild(sql<{ one: number }>`SELECT 1 AS one FROM pg_sleep(0.5)`)
          const victim = yield* Effect.forkChild(sql`SELECT 1 AS one FROM pg_sleep(5)`)
          // Real time (the test clock does not move): the statements must be running.
          yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 200)))
          const started = Date.now()
          yield* Fiber.interrupt(victim)
          expect(Date.now() - started, "the interrupted statement was cancelled, not waited for").toBeLessThan(2_000)
          expect(yield* Fiber.join(other)).toEqual([{ one: 1 }])
          const left = yield* sql<{ n: number }>`SELECT CAST(count(*) AS INTEGER) AS n FROM pg_stat_activity
          WHERE state = 'active' AND query LIKE '%pg_sleep(5)%' AND pid <> pg_backend_pid()`
          expect(left).toEqual([{ n: 0 }])
          for (let i = 0; i < 5; i++) expect(yield* sql<{ n: number }>`SELECT ${i} AS n`).toEqual([{ n: i }])
        })
    )

    it.effect("a connection keeps the statement texts used last prepared, at most `preparedStatements` of them", () =>
      Effect.gen(function* () {
        const url = yield* cluster.freshDatabase
        const context = yield* Layer.build(PgLive({ url: Redacted.make(url), poolSize: 1 }))
        const sql = Context.get(context, SqlClient.SqlClient)
        for (let i = 0; i < preparedStatements + 20; i++) {
          expect(yield* sql.unsafe(`SELECT CAST($1 AS INTEGER) + ${i} AS n`, [1])).toEqual([{ n: i + 1 }])
        }
        const [kept] = yield* sql<{ n: number }>`SELECT CAST(count(*) AS INTEGER) AS n FROM pg_prepared_statements`
        expect(kept!.n).toBeGreaterThan(0)
        expect(kept!.n).toBeLessThanOrEqual(preparedStatements + 1)
      })
    )

    it.effect("the server's client runs its statements prepared", () =>
      Effect.gen(function* () {
        const url = yield* cluster.freshDatabase
        const context = yield* Layer.build(PgLive({ url: Redacted.make(url), poolSize: 1 }))
        const sql = Context.get(context, SqlClient.SqlClient)
        const text = "SELECT CAST($1 AS INTEGER) * 2 AS doubled"
        for (const value of [1, 2]) expect(yield* sql.unsafe(text, [value])).toEqual([{ doubled: value * 2 }])
        const prepared = yield* sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`
        expect(prepared.map((row) => row.statement)).toContain(text)
      })
    )

    it.effect("lookups of 1 to 32 external ids make six prepared texts, and find what is mapped", () =>
      Effect.gen(function* () {
        const url = yield* cluster.freshDatabase
        const context = yield* Layer.build(pgLayer({ url: Redacted.make(url), poolSize: 1 }))
        const mappings = Context.get(context, Mappings.Mappings)
        const sql = Context.get(context, SqlClient.SqlClient)
        const scope = {
          companyId: companyId(),
          connectionId: connectionId(),
          resource: "products" as const
        }
        const mapped = Array.from({ length: 20 }, (_, i) => ({
          ...scope,
          externalId: `e${i}`,
          recordId: recordId(),
          createdAt: "2026-01-01T00:00:00.000Z"
        }))
        yield* Context.get(context, Transactor.Transactor).withTransaction(mappings.insertMany(mapped))
        for (let n = 1; n <= 32; n++) {
          const found = yield* mappings.findMany(
            scope,
            Array.from({ length: n }, (_, i) => `e${i}`)
          )
          expect(found).toEqual(new Map(mapped.slice(0, n).map((m) => [m.externalId, m.recordId])))
        }
        const texts = yield* sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements
          WHERE statement LIKE '%external_id IN%' AND statement NOT LIKE '%pg_prepared_statements%'`
        // Lists of 1, 2, 4, 8, 16 and 32 ids (one text per count would be 32).
        expect(texts.length).toBe(6)
      })
    )

    it.effect("two instances updating one record with the same expected revision: exactly one wins each round", () =>
      Effect.gen(function* () {
        const url = yield* cluster.freshDatabase
        const [a, b] = yield* twoInstances(url)
        const company = companyId()
        const id = recordId()
        const repoA = Context.get(a, CatalogRepository.CatalogRepository)
        const repoB = Context.get(b, CatalogRepository.CatalogRepository)
        const txA = Context.get(a, Transactor.Transactor)
        const txB = Context.get(b, Transactor.Transactor)
        yield* repoA.insert(record(company, id))
        for (let revision = 1; revision <= 10; revision++) {
          const attempt = (repo: typeof repoA, tx: typeof txA) =>
            Effect.result(tx.withTransaction(repo.update(record(company, id, revision + 1), revision)))
          const results = yield* Effect.all(
            [attempt(repoA, txA), attempt(repoB, txB), attempt(repoA, txA), attempt(repoB, txB)],
            {
              concurrency: "unbounded"
            }
          )
          expect(results.filter(Result.isSuccess).length).toBe(1)
          for (const loser of results.filter(Result.isFailure))
            expect(loser.failure).toMatchObject({ _tag: "RevisionConflict", current_revision: revision + 1 })
        }
        expect(Option.getOrThrow(yield* repoB.get(company, "products", id)).revision).toBe(11)
      })
    )

    it.effect("two instances appending for one company at once: its positions are 1..n, each once", () =>
      Effect.gen(function* () {
        const url = yield* cluster.freshDatabase
        const instances = yield* twoInstances(url)
        const company = companyId()
        const entry = (n: number): ChangeLog.ChangeEntry => change(company, { revision: n, at: String(n) })
        // 40 transactions, half through each instance, some of two changes, one rolled back.
        yield* Effect.all(
          Array.from({ length: 40 }, (_, n) => {
            const context = instances[n % 2]!
            const log = Context.get(context, ChangeLog.ChangeLog)
            const append = n % 3 === 0 ? log.appendMany([entry(n), entry(n)]) : log.append(entry(n))
            return Context.get(context, Transactor.Transactor)
              .withTransaction(n === 7 ? Effect.andThen(append, Effect.fail("rolled back")) : append)
              .pipe(Effect.result)
          }),
          { concurrency: "unbounded" }
        )
        const sql = Context.get(instances[0]!, SqlClient.SqlClient)
        const rows = yield* sql<{ position: string }>`
          SELECT company_position AS position FROM changes WHERE company_id = ${company} ORDER BY company_position`
        const appended = 39 + Array.from({ length: 40 }, (_, n) => n).filter((n) => n % 3 === 0).length
        expect(rows.map((row) => Number(row.position))).toEqual(Array.from({ length: appended }, (_, i) => i + 1))
        expect(yield* Context.get(instances[1]!, ChangeLog.ChangeLog).head(company)).toBe(appended)
        const [head] = yield* sql<{
          last: string
        }>`SELECT last_position AS last FROM change_heads WHERE company_id = ${company}`
        expect(Number(head!.last)).toBe(appended)
      })
    )

    it.effect("the feed, its head and a c1_ cursor read the company's range of an index", () =>
      Effect.gen(function* () {
        const context = yield* Layer.build(cluster.layerOf())
        const sql = Context.get(context, SqlClient.SqlClient)
        const log = Context.get(context, ChangeLog.ChangeLog)
        const companies = Array.from({ length: 20 }, () => companyId())
        yield* log.appendMany(Array.from({ length: 20_000 }, (_, n) => change(companies[n % 20]!, { at: String(n) })))
        yield* sql`ANALYZE`
        const planOf = (statement: { compile: () => readonly [string, ReadonlyArray<unknown>] }) => {
          const [text, params] = statement.compile()
          return Effect.map(sql.unsafe<{ "QUERY PLAN": string }>(`EXPLAIN ${text}`, params), (rows) =>
            rows.map((row) => row["QUERY PLAN"]).join("\n")
          )
        }
        const company = companies[3]!
        const read = yield* planOf(
          SqlChangeLog.readStatement(sql, {
            companyId: company,
            connectionId: connectionId(),
            after: 10,
            upTo: 60,
            visibleMask: 1,
            resources: ["products", "categories"],
            limit: 51
          })
        )
        // An index scan, or a bitmap of it when the planner expects many rows; never the table.
        expect(read).toMatch(/(Index Scan using|Bitmap Index Scan on) changes_pkey/)
        expect(read).not.toMatch(/Seq Scan on changes/)
        expect(read).toMatch(
          /Index Cond: \(\(company_id = .*\) AND \(company_position > .*\) AND \(company_position <= /
        )
        expect(yield* planOf(SqlChangeLog.headStatement(sql, company))).toMatch(
          /Index Only Scan Backward using changes_pkey on changes/
        )
        expect(yield* planOf(SqlChangeLog.globalPositionStatement(sql, company, 1000))).toMatch(
          /Index Scan Backward using changes_by_global_position on changes/
        )
      })
    )

    it.effect("a claim walks the pending jobs in queue order, once per preference, each locking what it takes", () =>
      Effect.gen(function* () {
        const context = yield* Layer.build(cluster.layerOf())
        const sql = Context.get(context, SqlClient.SqlClient)
        const companies = Array.from({ length: 50 }, () => uuid())
        // A long history of ended jobs, and a few pending ones.
        yield* sql`INSERT INTO jobs (id, company_id, connection_id, key_id, kind, state, scopes, run, attempts,
                     queued_at, queue_seq, created_at, updated_at, finished_at)
                   SELECT gen_random_uuid()::text, (string_to_array(${companies.join(",")}, ','))[1 + n % 50], gen_random_uuid()::text,
                     'key', CASE WHEN n % 3 = 0 THEN 'media' ELSE 'import' END,
                     CASE WHEN n < 19900 THEN 'completed' ELSE 'queued' END, '[]', 1, 1, n, n + 1, 'at', 'at',
                     CASE WHEN n < 19900 THEN 'at' END
                   FROM generate_series(0, 19999) AS n`
        yield* sql`ANALYZE jobs`
        const [text, params] = SqlJobStore.claimStatement(sql, {
          workerId: "worker",
          nowMillis: Date.now(),
          leaseMillis: 60_000,
          at: "at",
          avoidCompany: companies[0] as Ids.CompanyId
        }).compile()
        const plan = (yield* sql.unsafe<{ "QUERY PLAN": string }>(`EXPLAIN ${text}`, params))
          .map((row) => row["QUERY PLAN"])
          .join("\n")
        // Three sub-selects (another idle company, an idle company, any), each an index walk in queue order
        // under FOR UPDATE SKIP LOCKED; the running jobs of a company are looked up among the running or
        // pending jobs, never in its history; no sort, no table scan.
        expect(plan.match(/LockRows/g)).toHaveLength(3)
        expect(plan.match(/Index Scan using jobs_pending on jobs j(_\d)?\s/g)).toHaveLength(3)
        expect(plan.match(/using (jobs_by_state|jobs_pending_by_connection) on jobs r(_\d)?\s/g)).toHaveLength(2)
        expect(plan).toMatch(/Index Cond: \(id = COALESCE\(\$\d+, \$\d+, \$\d+\)\)/)
        expect(plan).not.toMatch(/Seq Scan|Sort|jobs_by_connection|jobs_queue_order/)
        // Concurrent claimers, whatever company each avoids, take different jobs.
        const jobs = Context.get(context, JobStore.JobStore)
        const claimed = yield* Effect.all(
          companies.slice(0, 10).map((company, i) =>
            jobs.claim({
              workerId: `w${i}`,
              nowMillis: Date.now(),
              leaseMillis: 60_000,
              at: "at",
              avoidCompany: company as Ids.CompanyId
            })
          ),
          { concurrency: "unbounded" }
        )
        const ids = claimed.map((job) => Option.getOrThrow(job).id)
        expect(new Set(ids).size).toBe(10)
      })
    )

    it.effect("two instances mapping one external id at once: one mapping, the other gets external_id_taken", () =>
      Effect.gen(function* () {
        const url = yield* cluster.freshDatabase
        const [a, b] = yield* twoInstances(url)
        const scope = {
          companyId: companyId(),
          connectionId: connectionId(),
          resource: "products" as const
        }
        const insert = (context: typeof a, recordId: Ids.RecordId) =>
          Effect.result(
            Context.get(context, Transactor.Transactor).withTransaction(
              Context.get(context, Mappings.Mappings).insert({
                ...scope,
                externalId: "p1",
                recordId,
                createdAt: "2026-01-01T00:00:00.000Z"
              })
            )
          )
        const results = yield* Effect.all([insert(a, recordId()), insert(b, recordId())], {
          concurrency: "unbounded"
        })
        expect(results.filter(Result.isSuccess).length).toBe(1)
        expect(results.filter(Result.isFailure).map((r) => r.failure)).toMatchObject([
          { _tag: "MappingConflict", reason: "external_id_taken" }
        ])
      })
    )
  })
})

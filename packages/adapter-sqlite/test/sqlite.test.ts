import { join } from "node:path"
import {
  backfillComponents,
  SqlCatalogRepository,
  SqlChangeLog,
  SqlImportStore,
  SqlJobStore,
  SqlMappings
} from "@catalog-sync/adapter-sql"
import { CatalogRepository, ChangeLog, type Ids, Mappings, Transactor } from "@catalog-sync/core"
import { SqlClient } from "effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Layer, Option } from "effect"
import { layer as sqliteLayer, Migrations, SqliteLive } from "../src/index.js"
import { PersistenceFixtures } from "@catalog-sync/core/testing"
import { tempDir, tempLayer } from "./support.js"

const { change, companyId, connectionId, mapping, record, recordId } = PersistenceFixtures

const count = (table: string, company: Ids.CompanyId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: number }>`SELECT count(*) AS n FROM ${sql(table)} WHERE company_id = ${company}`.pipe(
      Effect.map((rows) => rows[0]!.n)
    )
  )

describe("SqliteLive", () => {
  it.effect("applies the migrations once; running them again, or reopening the file, changes nothing", () =>
    Effect.gen(function* () {
      const filename = join(yield* tempDir, "nested", "catalog.db")
      const open = Effect.flatMap(Layer.build(SqliteLive({ filename })), (context) =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const again = yield* Migrations.migrate
          const applied = yield* sql<{
            migration_id: number
            name: string
          }>`SELECT migration_id, name FROM effect_sql_migrations`
          const tables = yield* sql<{
            name: string
          }>`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`
          return { again, applied, tables: tables.map((t) => t.name) }
        }).pipe(Effect.provide(context))
      )
      const first = yield* Effect.scoped(open)
      const second = yield* Effect.scoped(open)
      expect(first.again).toEqual([])
      expect(first.applied).toEqual(
        Object.keys(Migrations.migrations).map((key) => ({ migration_id: Number(key.slice(0, 4)), name: key.slice(5) }))
      )
      expect(second).toEqual(first)
      expect(first.tables).toEqual([
        "api_keys",
        "audit_log",
        "catalog_records",
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

  it.effect("migration 0008 fills the component index of bundles written before it", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* CatalogRepository.CatalogRepository
      const company = companyId()
      const [part, bundle] = [recordId(), recordId()]
      // A row as 0001-0007 wrote it: components in the document only.
      yield* sql`INSERT INTO catalog_records (company_id, resource, id, revision, data, created_at, updated_at)
                 VALUES (${company}, 'products', ${bundle}, 1, ${JSON.stringify({ kind: "bundle", components: [{ product_id: part, quantity: 2 }] })}, 'x', 'x')`
      expect(yield* repo.bundlesContaining(company, part)).toEqual([])
      yield* backfillComponents
      expect(yield* repo.bundlesContaining(company, part)).toEqual([bundle])
      expect(Option.getOrThrow(yield* repo.get(company, "products", bundle)).index.componentIds).toEqual([part])
    }).pipe(Effect.provide(SqlCatalogRepository.layer.pipe(Layer.provideMerge(tempLayer()))))
  )

  it.effect("opens the database in WAL mode with foreign keys, synchronous NORMAL and the busy timeout", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const pragma = (name: string) =>
        Effect.map(sql.unsafe<Record<string, unknown>>(`PRAGMA ${name}`), (rows) => Object.values(rows[0]!)[0])
      expect(yield* pragma("journal_mode")).toBe("wal")
      expect(yield* pragma("foreign_keys")).toBe(1)
      expect(yield* pragma("synchronous")).toBe(1)
      expect(yield* pragma("busy_timeout")).toBe(1234)
    }).pipe(Effect.provide(tempLayer({ busyTimeout: "1234 millis" })))
  )

  it.effect("reports lock contention from another connection as a retryable PersistenceError", () =>
    Effect.gen(function* () {
      const filename = join(yield* tempDir, "catalog.db")
      const mine = yield* Layer.build(sqliteLayer({ filename, busyTimeout: "50 millis" }))
      const theirs = yield* Layer.build(sqliteLayer({ filename, busyTimeout: "50 millis" }))
      const company = companyId()
      const locked = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      // The other connection takes the write lock and keeps its transaction open.
      const holder = yield* Effect.forkChild(
        Effect.gen(function* () {
          const tx = yield* Transactor.Transactor
          const repo = yield* CatalogRepository.CatalogRepository
          yield* tx.withTransaction(
            repo
              .insert(record(company))
              .pipe(Effect.andThen(Deferred.succeed(locked, undefined)), Effect.andThen(Deferred.await(release)))
          )
        }).pipe(Effect.provide(theirs))
      )
      yield* Deferred.await(locked)
      const repo = CatalogRepository.CatalogRepository
      const error = yield* Effect.flip(Effect.flatMap(repo, (r) => r.insert(record(company)))).pipe(
        Effect.provide(mine)
      )
      expect(error).toMatchObject({ _tag: "PersistenceError", retryable: true })
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
      yield* Effect.flatMap(repo, (r) => r.insert(record(company))).pipe(Effect.provide(mine))
      expect(yield* count("catalog_records", company).pipe(Effect.provide(mine))).toBe(2)
    })
  )
})

layer(tempLayer())("SQL persistence adapter on SQLite", (it) => {
  it.effect("keeps every method of every port within the company", () =>
    Effect.gen(function* () {
      const repo = yield* CatalogRepository.CatalogRepository
      const mappings = yield* Mappings.Mappings
      const a = companyId()
      const b = companyId()
      const connection = connectionId()
      const [category, brand, collection] = [recordId(), recordId(), recordId()]
      const parent = record(a, { resource: "categories" })
      const child = record(a, { resource: "categories", index: { parentId: parent.id } })
      const product = record(a, {
        index: { active: true, brandId: brand, collectionId: collection, categoryIds: [category] }
      })
      yield* Effect.forEach([parent, child, product], repo.insert)
      const scopeA = { companyId: a, connectionId: connection, resource: "products" as const }
      const scopeB = { ...scopeA, companyId: b }
      yield* mappings.insert(mapping(scopeA, "P-1", product.id))

      expect(yield* repo.get(b, "products", product.id)).toEqual(Option.none())
      expect(yield* repo.getMany(b, "products", [product.id])).toEqual([])
      expect((yield* repo.existing(b, "products", [product.id])).size).toBe(0)
      expect(yield* repo.ancestors(b, child.id, 10)).toEqual([])
      for (const query of [
        {},
        { includeArchived: true },
        { categoryId: category },
        { brandId: brand },
        { collectionId: collection },
        { active: true },
        { externalId: { connectionId: connection, value: "P-1" } }
      ]) {
        expect((yield* repo.list(a, "products", { limit: 10, ...query })).map((r) => r.id)).toEqual([product.id])
        expect(yield* repo.list(b, "products", { limit: 10, ...query })).toEqual([])
      }
      expect(yield* mappings.find(scopeB, "P-1")).toEqual(Option.none())
      expect((yield* mappings.findMany(scopeB, ["P-1"])).size).toBe(0)
      expect((yield* mappings.externalIdsOf(scopeB, [product.id])).size).toBe(0)

      // Company B cannot change A's record, even with the right id and revision: to B it does not exist.
      const foreignUpdate = yield* Effect.exit(
        repo.update({ ...product, companyId: b, revision: 2, data: { name: "Stolen" } }, 1)
      )
      expect(Exit.isFailure(foreignUpdate) && Cause.hasDies(foreignUpdate.cause)).toBe(true)
      expect(Option.getOrThrow(yield* repo.get(a, "products", product.id))).toEqual(product)
      // Ids and external ids of another company never collide.
      yield* repo.insert({ ...product, companyId: b })
      yield* mappings.insert(mapping(scopeB, "P-1", product.id))
      expect(yield* repo.ancestors(a, child.id, 10)).toEqual([parent.id])
    })
  )

  it.effect("lets exactly one of two racing updates of the same revision win", () =>
    Effect.gen(function* () {
      const repo = yield* CatalogRepository.CatalogRepository
      const r = record(companyId())
      yield* repo.insert(r)
      const results = yield* Effect.all(
        ["Chair", "Stool"].map((name) => Effect.result(repo.update({ ...r, revision: 2, data: { name } }, 1))),
        { concurrency: "unbounded" }
      )
      const lost = results.filter((result) => result._tag === "Failure")
      expect(lost).toHaveLength(1)
      expect(lost[0]!.failure).toMatchObject({ _tag: "RevisionConflict", current_revision: 2, expected_revision: 1 })
      expect(Option.getOrThrow(yield* repo.get(r.companyId, "products", r.id)).revision).toBe(2)
    })
  )

  it.effect("maps each unique constraint of mappings to its MappingConflict reason", () =>
    Effect.gen(function* () {
      const mappings = yield* Mappings.Mappings
      const scope = { companyId: companyId(), connectionId: connectionId(), resource: "products" as const }
      const [a, b] = [recordId(), recordId()]
      yield* mappings.insert(mapping(scope, "A", a))
      expect(yield* Effect.flip(mappings.insert(mapping(scope, "A", b)))).toMatchObject({ reason: "external_id_taken" })
      expect(yield* Effect.flip(mappings.insert(mapping(scope, "B", a)))).toMatchObject({
        reason: "record_already_mapped"
      })
      // Both taken: the external id the client sent is the one reported.
      expect(yield* Effect.flip(mappings.insert(mapping(scope, "A", a)))).toMatchObject({ reason: "external_id_taken" })
      // Another resource is another namespace.
      yield* mappings.insert(mapping({ ...scope, resource: "categories" }, "A", a))
      expect(Object.fromEntries(yield* mappings.findMany(scope, ["A", "B"]))).toEqual({ A: a })
    })
  )

  it.effect("a conflict inside a transaction does not break the rest of it", () =>
    Effect.gen(function* () {
      const mappings = yield* Mappings.Mappings
      const tx = yield* Transactor.Transactor
      const scope = { companyId: companyId(), connectionId: connectionId(), resource: "products" as const }
      const [a, b] = [recordId(), recordId()]
      yield* tx.withTransaction(
        Effect.gen(function* () {
          yield* mappings.insert(mapping(scope, "A", a))
          yield* Effect.flip(mappings.insert(mapping(scope, "A", b)))
          yield* mappings.insert(mapping(scope, "B", b))
        })
      )
      expect(Object.fromEntries(yield* mappings.findMany(scope, ["A", "B"]))).toEqual({ A: a, B: b })
    })
  )

  it.effect("a failure inside withTransaction leaves no row in any table", () =>
    Effect.gen(function* () {
      const repo = yield* CatalogRepository.CatalogRepository
      const mappings = yield* Mappings.Mappings
      const changes = yield* ChangeLog.ChangeLog
      const tx = yield* Transactor.Transactor
      const company = companyId()
      const connection = connectionId()
      const r = record(company, { index: { categoryIds: [recordId(), recordId()] } })
      const failed = yield* Effect.flip(
        tx.withTransaction(
          Effect.gen(function* () {
            yield* repo.insert(r)
            yield* repo.update({ ...r, revision: 2 }, 1)
            yield* mappings.insert(
              mapping({ companyId: company, connectionId: connection, resource: "products" }, "X", r.id)
            )
            yield* changes.append({
              companyId: company,
              resource: "products",
              recordId: r.id,
              revision: 2,
              operation: "created",
              originConnectionId: connection,
              at: "2026-01-01T00:00:00.000Z"
            })
            return yield* Effect.fail("rule broken" as const)
          })
        )
      )
      expect(failed).toBe("rule broken")
      for (const table of ["catalog_records", "record_categories", "mappings", "changes"]) {
        expect([table, yield* count(table, company)]).toEqual([table, 0])
      }
    })
  )

  it.effect("a failed nested transaction rolls back only its own writes", () =>
    Effect.gen(function* () {
      const repo = yield* CatalogRepository.CatalogRepository
      const tx = yield* Transactor.Transactor
      const company = companyId()
      const [kept, dropped] = [record(company), record(company)]
      yield* tx.withTransaction(
        Effect.gen(function* () {
          yield* repo.insert(kept)
          yield* Effect.result(tx.withTransaction(Effect.andThen(repo.insert(dropped), Effect.fail("inner"))))
        })
      )
      expect((yield* repo.list(company, "products", { limit: 10 })).map((r) => r.id)).toEqual([kept.id])
    })
  )

  it.effect("appends changes numbered 1, 2, 3... by the company's own sequence", () =>
    Effect.gen(function* () {
      const changes = yield* ChangeLog.ChangeLog
      const sql = yield* SqlClient.SqlClient
      const company = companyId()
      const entry = change(company)
      yield* changes.append(entry)
      yield* changes.append({ ...entry, companyId: companyId() })
      yield* changes.appendMany([
        { ...entry, revision: 2, operation: "updated" },
        { ...entry, companyId: companyId() },
        { ...entry, revision: 3, operation: "archived" }
      ])
      const rows = yield* sql<{ company_position: number; revision: number; operation: string; global: unknown }>`
        SELECT company_position, revision, operation, global_position AS global FROM changes
        WHERE company_id = ${company} ORDER BY company_position`
      expect(rows).toEqual([
        { company_position: 1, revision: 1, operation: "created", global: null },
        { company_position: 2, revision: 2, operation: "updated", global: null },
        { company_position: 3, revision: 3, operation: "archived", global: null }
      ])
    })
  )

  it.effect("a programming error (duplicate record id) dies instead of failing as a PersistenceError", () =>
    Effect.gen(function* () {
      const repo = yield* CatalogRepository.CatalogRepository
      const r = record(companyId())
      yield* repo.insert(r)
      const exit = yield* Effect.exit(repo.insert(r))
      expect(Exit.isFailure(exit) && Cause.hasDies(exit.cause)).toBe(true)
    })
  )

  it.effect("keeps category ids in the record's own order and walks long category chains", () =>
    Effect.gen(function* () {
      const repo = yield* CatalogRepository.CatalogRepository
      const company = companyId()
      const categoryIds = [recordId(), recordId(), recordId()].sort().reverse()
      const product = record(company, { index: { categoryIds } })
      yield* repo.insert(product)
      expect(Option.getOrThrow(yield* repo.get(company, "products", product.id)).index.categoryIds).toEqual(categoryIds)
      // A cycle (a <- b <- a) ends at maxDepth.
      const [a, b] = [recordId(), recordId()]
      yield* repo.insert(record(company, { id: a, resource: "categories", index: { parentId: b } }))
      yield* repo.insert(record(company, { id: b, resource: "categories", index: { parentId: a } }))
      expect(yield* repo.ancestors(company, a, 5)).toEqual([b, a, b, a, b])
      expect(yield* repo.ancestors(company, a, 0)).toEqual([])
    })
  )
})

/** Every shape of list query the port can produce. */
const listShapes = (connection: string, id: string) => ({
  live: {},
  "live after cursor": { cursor: id },
  "with archived": { includeArchived: true, cursor: id },
  collection: { collectionId: id, cursor: id },
  "collection with archived": { collectionId: id, includeArchived: true },
  brand: { brandId: id, cursor: id },
  active: { active: true, cursor: id },
  "brand and active": { brandId: id, active: false },
  category: { categoryId: id, cursor: id },
  "category with archived and brand": { categoryId: id, includeArchived: true, brandId: id },
  "external id": { externalId: { connectionId: connection, value: "E-1" } },
  "external id and category": { externalId: { connectionId: connection, value: "E-1" }, categoryId: id }
})

layer(tempLayer())("list query plans on SQLite", (it) => {
  const plans = Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const out: Record<string, ReadonlyArray<string>> = {}
    // Each shape also as a list page reads it, with the external ids of a connection's mappings.
    for (const mappedFor of [undefined, connectionId()]) {
      for (const [name, query] of Object.entries(listShapes(connectionId(), recordId()))) {
        const [text, params] = SqlCatalogRepository.listStatement(sql, {
          companyId: companyId(),
          resource: "products",
          limit: 50,
          mappedFor,
          ...query
        }).compile()
        const rows = yield* sql.unsafe<{ detail: string }>(`EXPLAIN QUERY PLAN ${text}`, params)
        out[mappedFor === undefined ? name : `${name}, mapped`] = rows.map((row) => row.detail)
      }
    }
    return out
  })

  // Every step is an index SEARCH (a SCAN, even "USING INDEX", would read the whole company or table) and
  // rows come out of the index in id order (no temp b-tree for ORDER BY).
  const expectIndexRangeScans = (byShape: Record<string, ReadonlyArray<string>>) => {
    for (const [shape, steps] of Object.entries(byShape)) {
      for (const step of steps) {
        expect([shape, step]).toEqual([
          shape,
          expect.stringMatching(/^SEARCH \w+ (EXISTS )?USING (COVERING )?(INDEX|PRIMARY KEY)/)
        ])
      }
    }
  }

  it.effect("use index range scans on a fresh database (no statistics)", () => Effect.map(plans, expectIndexRangeScans))

  it.effect("still use index range scans after ANALYZE on skewed data", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* CatalogRepository.CatalogRepository
      const company = companyId()
      const [category, brand] = [recordId(), recordId()]
      // One category holds a quarter of the products: the case where SQLite's planner, left alone, prefers
      // scanning products and sorting.
      yield* Effect.forEach(
        Array.from({ length: 2000 }, (_, i) =>
          record(i % 3 === 0 ? company : companyId(), {
            archivedAt: i % 13 === 0 ? "2026-01-02T00:00:00.000Z" : null,
            index: {
              active: i % 5 !== 0,
              brandId: i % 7 === 0 ? brand : null,
              categoryIds: [i % 4 === 0 ? category : recordId()]
            }
          })
        ),
        repo.insert,
        { discard: true }
      )
      yield* sql`ANALYZE`
      expectIndexRangeScans(yield* plans)
    })
  )

  it.effect("ancestors walks categories through the primary key", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const [text, params] = SqlCatalogRepository.ancestorsStatement(sql, {
        companyId: companyId(),
        categoryId: recordId(),
        maxDepth: 100
      }).compile()
      const steps = (yield* sql.unsafe<{ detail: string }>(`EXPLAIN QUERY PLAN ${text}`, params)).map(
        (row) => row.detail
      )
      const onRecords = steps.filter((detail) => /^(SCAN|SEARCH) (catalog_records|c)\b/.test(detail))
      expect(onRecords).toHaveLength(2)
      for (const detail of onRecords) {
        expect(detail).toMatch(
          /^SEARCH (catalog_records|c) USING INDEX sqlite_autoindex_catalog_records_1 \(company_id=\? AND resource=\? AND id=\?\)/
        )
      }
    })
  )
})

layer(tempLayer())("mapping query plans on SQLite", (it) => {
  it.effect("external ids of a page of records are one index lookup per id, not a scan of the connection", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const scope = { companyId: companyId(), connectionId: connectionId(), resource: "products" as const }
      const [text, params] = SqlMappings.byRecordStatement(sql, scope, [recordId(), recordId(), recordId()]).compile()
      const steps = (yield* sql.unsafe<{ detail: string }>(`EXPLAIN QUERY PLAN ${text}`, params)).map(
        (row) => row.detail
      )
      const onMappings = steps.filter((detail) => /\b(m|mappings)\b/.test(detail))
      expect(onMappings).toHaveLength(1)
      expect(onMappings[0]).toMatch(
        /^SEARCH m USING (COVERING )?INDEX \S+ \(company_id=\? AND connection_id=\? AND resource=\? AND record_id=\?\)/
      )
    })
  )
})

layer(tempLayer())("change feed query plans on SQLite", (it) => {
  it.effect("the feed, its head, an append and a c1_ cursor read the company's range of an index", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const company = companyId()
      const planOf = (statement: { compile: () => readonly [string, ReadonlyArray<unknown>] }) => {
        const [text, params] = statement.compile()
        return Effect.map(sql.unsafe<{ detail: string }>(`EXPLAIN QUERY PLAN ${text}`, params), (rows) =>
          rows.map((row) => row.detail).filter((detail) => /\b(changes|c|m)\b/.test(detail))
        )
      }
      expect(
        yield* planOf(
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
      ).toEqual([
        "SEARCH c USING PRIMARY KEY (company_id=? AND company_position>? AND company_position<?)",
        expect.stringMatching(
          /^SEARCH m USING (COVERING )?INDEX \S+ \(company_id=\? AND connection_id=\? AND resource=\? AND record_id=\?\) LEFT-JOIN$/
        )
      ])
      expect(yield* planOf(SqlChangeLog.headStatement(sql, company))).toEqual([
        "SEARCH changes USING PRIMARY KEY (company_id=?)"
      ])
      expect(yield* planOf(SqlChangeLog.appendStatement(sql, company, [change(company), change(company)]))).toEqual([
        "SEARCH changes USING PRIMARY KEY (company_id=?)"
      ])
      expect(yield* planOf(SqlChangeLog.globalPositionStatement(sql, company, 1000))).toEqual([
        "SEARCH changes USING COVERING INDEX changes_by_global_position (company_id=? AND global_position<?)"
      ])
    })
  )
})

layer(tempLayer())("job claim query plans on SQLite", (it) => {
  const claimPlan = (avoidCompany?: Ids.CompanyId) =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const [text, params] = SqlJobStore.claimStatement(sql, {
        workerId: "worker",
        nowMillis: Date.now(),
        leaseMillis: 60_000,
        at: new Date().toISOString(),
        avoidCompany
      }).compile()
      return (yield* sql.unsafe<{ detail: string }>(`EXPLAIN QUERY PLAN ${text}`, params)).map((row) => row.detail)
    })

  // The candidates come from the pending jobs in queue order (no sort of every queued job), and each one's
  // checks read its connection's and company's unfinished jobs, or the running ones, never the jobs that
  // have ended. One walk per preference of the claim: three with a company to avoid (the first two check
  // that the candidate's company runs nothing), two without.
  const expectHistoryFree = (steps: ReadonlyArray<string>, walks: 2 | 3) => {
    const each = <A>(step: A) => Array.from({ length: walks }, () => step)
    expect(steps.filter((detail) => /\bjobs\b/.test(detail))).toEqual([
      "SEARCH jobs USING INDEX sqlite_autoindex_jobs_1 (id=?)"
    ])
    expect(steps.filter((detail) => /\bj\b/.test(detail))).toEqual(each("SCAN j USING INDEX jobs_pending"))
    // A company runs nothing: among the running jobs (as many as there are workers), not its history.
    expect(steps.filter((detail) => /\br\b/.test(detail))).toEqual(
      each("SEARCH r USING INDEX jobs_by_state (state=?)").slice(1)
    )
    // By connection among pending jobs, or among the running ones.
    expect(steps.filter((detail) => /\bo\b/.test(detail))).toEqual(
      each(
        expect.stringMatching(
          /^SEARCH o USING INDEX (jobs_pending_by_connection \(company_id=\? AND connection_id=\?\)|jobs_by_state \(state=\?\))/
        )
      )
    )
    expect(steps.filter((detail) => /\bm\b/.test(detail))).toEqual(
      each(
        expect.stringMatching(
          /^SEARCH m USING INDEX (jobs_media_unfinished \(company_id=\?|jobs_by_state \(state=\?\))/
        )
      )
    )
    expect(steps.filter((detail) => /TEMP B-TREE/.test(detail))).toEqual([])
  }
  const expectBothHistoryFree = Effect.gen(function* () {
    expectHistoryFree(yield* claimPlan(), 2)
    expectHistoryFree(yield* claimPlan(companyId()), 3)
  })

  it.effect("a claim reads pending jobs only, on a fresh database (no statistics)", () => expectBothHistoryFree)

  it.effect("and still after ANALYZE with a long history of finished jobs", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const company = companyId()
      const connection = connectionId()
      const at = new Date().toISOString()
      for (let i = 0; i < 400; i++) {
        const state = i < 390 ? "completed" : "queued"
        yield* sql`INSERT INTO jobs (id, company_id, connection_id, key_id, kind, state, scopes, run, attempts,
                     queued_at, queue_seq, created_at, updated_at, finished_at)
                   VALUES (${recordId()}, ${company}, ${connection}, 'key', ${i % 3 === 0 ? "media" : "import"}, ${state},
                     '[]', 1, 1, ${i}, ${i + 1}, ${at}, ${at}, ${state === "completed" ? at : null})`
      }
      yield* sql`ANALYZE`
      yield* expectBothHistoryFree
      const [text, params] = sql`SELECT COALESCE(MAX(queue_seq), 0) + 1 FROM jobs`.compile()
      // A new job's place in the queue reads the last entry of the queue order, not the table.
      expect(
        (yield* sql.unsafe<{ detail: string }>(`EXPLAIN QUERY PLAN ${text}`, params)).map((r) => r.detail)
      ).toEqual([expect.stringMatching(/^SEARCH jobs USING COVERING INDEX jobs_queue_order/)])
      // The retention purge reads the oldest finished import jobs from the index of finished jobs, in its order.
      const [purge, purgeParams] = SqlImportStore.purgeCandidatesStatement(sql, at, 50).compile()
      expect(
        (yield* sql.unsafe<{ detail: string }>(`EXPLAIN QUERY PLAN ${purge}`, purgeParams)).map((r) => r.detail)
      ).toEqual([
        expect.stringMatching(/^SEARCH jobs USING (COVERING )?INDEX jobs_finished \(kind=\? AND finished_at<\?\)/)
      ])
    })
  )
})

import { join } from "node:path"
import { Accounts, ApiKey, type Company, type Ids } from "@catalog-sync/core"
import { SqlClient } from "effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Context, Deferred, Effect, Exit, Fiber, Layer, Option, References } from "effect"
import { layer as sqliteLayer } from "../src/index.js"
import { PersistenceFixtures } from "@catalog-sync/core/testing"
import { tempDir } from "./support.js"

const { companyId, connectionId } = PersistenceFixtures

/** The server's instance and a second one on the same file, as the admin CLI in another process is. */
const serverAndCli = Effect.gen(function* () {
  const filename = join(yield* tempDir, "catalog.db")
  const open = () => Layer.build(sqliteLayer({ filename }))
  const server = yield* open()
  const cli = yield* open()
  const clientOf = (instance: Context.Context<never>) =>
    Context.get(instance as Context.Context<SqlClient.SqlClient>, SqlClient.SqlClient)
  yield* clientOf(server)`CREATE TABLE probe (v INTEGER NOT NULL)`
  return { server, cli, sql: clientOf(server), cliSql: clientOf(cli) }
})

/**
 * A transaction on `sql` in its own fiber: `body`, then held open until `end`, which commits it (or rolls it
 * back with `rollBack`) and gives its exit; `opened` waits until `body` has run.
 */
const forkedTransaction = <E>(sql: SqlClient.SqlClient, body: Effect.Effect<unknown, E>, rollBack = false) =>
  Effect.gen(function* () {
    const opened = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    const fiber = yield* sql
      .withTransaction(
        Effect.gen(function* () {
          yield* body
          yield* Deferred.succeed(opened, undefined)
          yield* Deferred.await(release)
          if (rollBack) return yield* Effect.fail("roll back" as const)
        })
      )
      .pipe(Effect.exit, Effect.forkChild)
    return {
      opened: Deferred.await(opened),
      end: Effect.andThen(Deferred.succeed(release, undefined), Fiber.join(fiber))
    }
  })

/** A transaction held open, once `body` has run in it, until `end` commits it. */
const heldTransaction = <E>(sql: SqlClient.SqlClient, body: Effect.Effect<unknown, E>) =>
  Effect.tap(forkedTransaction(sql, body), (transaction) => transaction.opened)

/** Answers within 2 s: a read outside a transaction never waits for another fiber's transaction to end. */
const promptly = <A, E>(effect: Effect.Effect<A, E>) =>
  effect.pipe(
    Effect.timeoutOrElse({ duration: "2 seconds", orElse: () => Effect.fail("waited for the transaction" as const) })
  )

const count = (sql: SqlClient.SqlClient) =>
  Effect.map(sql<{ readonly n: number }>`SELECT count(*) AS n FROM probe`, (rows) => rows[0]!.n)

/** Operations a fiber runs before the runtime yields it; the least that still lets a fiber progress. */
const opsBeforeYield = 10

/**
 * `outside` started while the database is busy with one transaction, and another (`body`, then held open
 * until `outside` is done) starting right after it. The runtime yields a fiber between two of its
 * operations every so often (every 2048, so under load anywhere): `outside` here yields every
 * `opsBeforeYield`, after `phase` operations of its own first, so that a run over every phase yields it
 * at each point of its way. Returns what `outside` gave and how the second transaction ended (it rolls
 * back).
 */
const besideTransaction = <A, E>(
  sql: SqlClient.SqlClient,
  phase: number,
  outside: Effect.Effect<A, E>,
  body: Effect.Effect<unknown, E>
) =>
  Effect.gen(function* () {
    const busy = yield* heldTransaction(sql, Effect.void)
    const delayed = Effect.andThen(Effect.replicateEffect(Effect.void, phase), outside)
    const started = yield* Effect.forkChild(
      Effect.provideService(delayed, References.MaxOpsBeforeYield, opsBeforeYield)
    )
    yield* Effect.sleep("20 millis")
    const second = yield* forkedTransaction(sql, body, true)
    yield* Effect.sleep("20 millis")
    yield* busy.end
    const result = yield* Fiber.join(started)
    return { result, ended: yield* second.end }
  })

const phases = Array.from({ length: opsBeforeYield + 2 }, (_, phase) => phase)

describe("statements outside a transaction on the server's client", () => {
  it.live("never run inside another fiber's transaction: a read does not see its uncommitted write", () =>
    Effect.gen(function* () {
      const { sql } = yield* serverAndCli
      for (const phase of phases) {
        const { result, ended } = yield* besideTransaction(
          sql,
          phase,
          count(sql),
          sql`INSERT INTO probe (v) VALUES (${phase})`
        )
        expect(Exit.isFailure(ended)).toBe(true)
        expect({ phase, seen: result }).toEqual({ phase, seen: 0 })
      }
      expect(yield* count(sql)).toBe(0)
    })
  )

  it.live("never run inside another fiber's transaction: a write is not rolled back with it", () =>
    Effect.gen(function* () {
      const { sql } = yield* serverAndCli
      for (const phase of phases) {
        const { ended } = yield* besideTransaction(
          sql,
          phase,
          sql`INSERT INTO probe (v) VALUES (${phase})`,
          sql`INSERT INTO probe (v) VALUES (${-1})`
        )
        expect(Exit.isFailure(ended)).toBe(true)
      }
      expect(yield* sql`SELECT v FROM probe ORDER BY v`).toEqual(phases.map((v) => ({ v })))
    })
  )

  it.live("a read answers at once while another fiber's transaction is open, from the latest commit", () =>
    Effect.gen(function* () {
      const { sql, cliSql } = yield* serverAndCli
      // The transaction's first read fixes its snapshot of the database (WAL); the CLI commits after it.
      const open = yield* heldTransaction(sql, count(sql))
      yield* cliSql`INSERT INTO probe (v) VALUES (2)`
      expect(yield* promptly(count(sql))).toBe(1)
      yield* open.end
    })
  )

  it.live("a key the CLI creates is accepted at once, while a transaction is open on the server's client", () =>
    Effect.gen(function* () {
      const { server, cli, sql } = yield* serverAndCli
      const accountsOf = (instance: Context.Context<never>) =>
        Context.get(instance as Context.Context<Accounts.Accounts>, Accounts.Accounts)
      const serverAccounts = accountsOf(server)
      const cliAccounts = accountsOf(cli)
      // The server has looked keys up before (its cached version is known).
      expect(Option.isNone(yield* serverAccounts.findKey(ApiKey.generate().keyId))).toBe(true)
      const open = yield* heldTransaction(sql, count(sql))
      const company: Company.Company = {
        id: companyId(),
        currency: "EUR",
        main_language: "en",
        languages: ["en"],
        tax_model: "inclusive",
        tax_rates: ["20"],
        storage_slug: `slug-${companyId()}`,
        name: "Acme",
        enabled: true,
        subscription_active: true,
        stock_package: false,
        inventory_module: false,
        granted_scopes: ["catalog:read"],
        domains: [],
        created_at: "2026-01-01T00:00:00.000Z"
      }
      const connection = {
        id: connectionId(),
        company_id: company.id,
        name: "ERP",
        enabled: true,
        created_at: "2026-01-01T00:00:00.000Z"
      }
      const key: ApiKey.ApiKey = {
        id: ApiKey.generate().keyId,
        company_id: company.id as Ids.CompanyId,
        connection_id: connection.id,
        name: "fresh",
        scopes: ["catalog:read"],
        created_at: "2026-01-01T00:00:00.000Z",
        expires_at: "2099-01-01T00:00:00.000Z",
        revoked_at: null
      }
      yield* cliAccounts.saveCompany(company)
      yield* cliAccounts.saveConnection(connection)
      yield* cliAccounts.insertKey(key, "hash")
      const found = yield* promptly(serverAccounts.findKey(key.id))
      expect(Option.map(found, (grant) => grant.key.id)).toEqual(Option.some(key.id))
      yield* open.end
    })
  )
})

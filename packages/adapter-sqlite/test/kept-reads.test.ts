import { join } from "node:path"
import { CatalogRepository, type Ids, Mappings, type StoredRecord } from "@catalog-sync/core"
import { SqlClient } from "effect/sql"
import type { Connection } from "effect/sql/SqlConnection"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Option } from "effect"
import { StatementHook } from "@catalog-sync/adapter-sql"
import { layer as sqliteLayer } from "../src/index.js"
import { PersistenceFixtures } from "@catalog-sync/core/testing"
import { tempDir } from "./support.js"

const { companyId, connectionId, mapping, record } = PersistenceFixtures

/** Counts the statements a connection runs. */
const counting = () => {
  const seen = { statements: 0 }
  const wrap = (connection: Connection): Connection =>
    StatementHook.aroundStatements(connection, (_sql, _params, run) =>
      Effect.suspend(() => {
        seen.statements++
        return run
      })
    )
  return { seen, wrap }
}

/** The server's instance (statements counted) and a second one on the same file, as the admin CLI's process. */
const serverAndCli = Effect.gen(function* () {
  const filename = join(yield* tempDir, "catalog.db")
  const { seen, wrap } = counting()
  const server = yield* Layer.build(sqliteLayer({ filename, wrapConnection: wrap }))
  const cli = yield* Layer.build(sqliteLayer({ filename }))
  const ports = (instance: Context.Context<never>) => ({
    catalog: Context.get(
      instance as Context.Context<CatalogRepository.CatalogRepository>,
      CatalogRepository.CatalogRepository
    ),
    mappings: Context.get(instance as Context.Context<Mappings.Mappings>, Mappings.Mappings),
    sql: Context.get(instance as Context.Context<SqlClient.SqlClient>, SqlClient.SqlClient)
  })
  return { seen, server: ports(server), cli: ports(cli) }
})

const revisionOf = (read: Option.Option<{ readonly record: StoredRecord.StoredRecord }>) =>
  Option.map(read, ({ record }) => record.revision)

describe("records read by id on SQLite", () => {
  it.effect("are kept until any connection commits, another process's included", () =>
    Effect.gen(function* () {
      const { seen, server, cli } = yield* serverAndCli
      const company = companyId()
      const connection = connectionId()
      const stored = record(company)
      yield* server.catalog.insert(stored)
      const get = server.catalog.getMapped(company, "products", stored.id, connection)

      const before = seen.statements
      expect(revisionOf(yield* get)).toEqual(Option.some(1))
      expect(seen.statements - before).toBe(1)
      expect(revisionOf(yield* get)).toEqual(Option.some(1))
      expect(seen.statements - before).toBe(1)

      // The CLI's process commits: the next read runs its statement and sees the new revision.
      yield* cli.catalog.update({ ...stored, revision: 2, data: { name: "Chair" } }, 1)
      const updated = yield* get
      expect(revisionOf(updated)).toEqual(Option.some(2))
      expect(Option.map(updated, ({ record }) => record.data)).toEqual(Option.some({ name: "Chair" }))
      expect(seen.statements - before).toBe(2)

      // A mapping committed elsewhere is a commit too: the read names the external id.
      yield* cli.mappings.insert(
        mapping({ companyId: company, connectionId: connection, resource: "products" }, "SOFA-1", stored.id)
      )
      expect(Option.map(yield* get, ({ externalId }) => externalId)).toEqual(Option.some("SOFA-1"))
      // Each connection has its own key: another connection's read has no external id.
      expect(
        Option.map(
          yield* server.catalog.getMapped(company, "products", stored.id, connectionId()),
          ({ externalId }) => externalId
        )
      ).toEqual(Option.some(null))
    })
  )

  it.effect("are never kept inside a transaction: a rolled-back write is not read afterwards", () =>
    Effect.gen(function* () {
      const { seen, server } = yield* serverAndCli
      const company = companyId()
      const connection = connectionId()
      const stored = record(company)
      yield* server.catalog.insert(stored)
      const get = server.catalog.getMapped(company, "products", stored.id, connection)
      expect(revisionOf(yield* get)).toEqual(Option.some(1))

      const inside = yield* server.sql
        .withTransaction(
          Effect.gen(function* () {
            yield* server.catalog.update({ ...stored, revision: 2 }, 1)
            const first = revisionOf(yield* get)
            const before = seen.statements
            const second = revisionOf(yield* get)
            expect(seen.statements - before).toBe(1)
            return yield* Effect.fail({ first, second } as const)
          })
        )
        .pipe(Effect.flip)
      expect(inside).toEqual({ first: Option.some(2), second: Option.some(2) })
      expect(revisionOf(yield* get)).toEqual(Option.some(1))
    })
  )

  it.effect("a record that is not there is read again each time", () =>
    Effect.gen(function* () {
      const { seen, server } = yield* serverAndCli
      const get = server.catalog.getMapped(
        companyId(),
        "products",
        record(companyId()).id as Ids.RecordId,
        connectionId()
      )
      const before = seen.statements
      expect(yield* get).toEqual(Option.none())
      expect(yield* get).toEqual(Option.none())
      expect(seen.statements - before).toBe(2)
    })
  )
})

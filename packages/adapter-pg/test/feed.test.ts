import { CatalogService, ChangeFeed, ChangeLog, type Company, Ids, Principal, Transactor } from "@catalog-sync/core"
import { describe, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Ref } from "effect"
import { expect } from "vitest"
import { PersistenceFixtures } from "@catalog-sync/core/testing"
import { layer as pgLayer, unavailableReason } from "../src/testing.js"

const skip = unavailableReason()

const { change, companyId, connectionId } = PersistenceFixtures

const settings = (): Company.CompanySettings => ({
  id: companyId(),
  currency: "EUR",
  main_language: "en",
  languages: ["en"],
  tax_model: "none",
  tax_rates: [],
  storage_slug: "feed"
})

const principalOf = (company: Company.CompanySettings): Principal.Principal => ({
  company,
  connectionId: connectionId(),
  keyId: "k",
  scopes: new Set(["catalog:read", "catalog:write"]),
  features: { stock: false }
})

const Live = Layer.mergeAll(CatalogService.CatalogService.Default, ChangeFeed.ChangeFeed.Default).pipe(
  Layer.provideMerge(Ids.IdsLive),
  Layer.provideMerge(pgLayer({ poolSize: 12 }))
)

// The ordering guarantee of the feed under concurrent writers: a reader following next_cursor while
// writes commit in parallel must see every change exactly once, and each record's revisions in order.
describe.skipIf(skip !== undefined)("change feed on PostgreSQL", () => {
  layer(Live, { timeout: 120_000 })("concurrent writers", (it) => {
    it.effect("a change committed after a later one is still seen: positions follow commit order", () =>
      Effect.gen(function* () {
        const company = settings()
        const reader = principalOf(company)
        const log = yield* ChangeLog.ChangeLog
        const tx = yield* Transactor.Transactor
        const feed = yield* ChangeFeed.ChangeFeed
        const entry = (name: string): ChangeLog.ChangeEntry =>
          change(company.id, { resource: "categories", originConnectionId: reader.connectionId, at: name })
        const read = (cursor?: string) =>
          feed.read({ cursor, limit: 50 }).pipe(Effect.provideService(Principal.CurrentPrincipal, reader))
        const appended = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        // A slow writer appends first and commits last.
        const slow = yield* Effect.forkChild(
          tx.withTransaction(
            log
              .append(entry("slow"))
              .pipe(Effect.andThen(Deferred.succeed(appended, undefined)), Effect.andThen(Deferred.await(release)))
          )
        )
        yield* Deferred.await(appended)
        // A fast writer appends after it and would commit first.
        const fast = yield* Effect.forkChild(tx.withTransaction(log.append(entry("fast"))))
        // Real time (the test clock does not move).
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 300)))
        const during = yield* read()
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(slow)
        yield* Fiber.join(fast)
        const after = yield* read(during.next_cursor)
        const seen = [...during.records, ...after.records].map((r) => r.at)
        expect(seen.sort()).toEqual(["fast", "slow"])
      })
    )

    it.effect("a reader following the feed during concurrent writes sees every change exactly once, in order", () =>
      Effect.gen(function* () {
        const company = settings()
        const writers = Array.from({ length: 10 }, () => principalOf(company))
        const reader = principalOf(company)
        const catalog = yield* CatalogService.CatalogService
        const feed = yield* ChangeFeed.ChangeFeed
        const done = yield* Ref.make(false)
        const seen: Array<{ id: string; revision: number }> = []

        const follow = Effect.gen(function* () {
          let cursor: string | undefined
          for (;;) {
            const finished = yield* Ref.get(done)
            const page = yield* feed
              .read({ cursor, limit: 7 })
              .pipe(Effect.provideService(Principal.CurrentPrincipal, reader))
            seen.push(...page.records.map((r) => ({ id: r.id, revision: r.revision })))
            cursor = page.next_cursor
            if (finished && !page.has_more) return
          }
        })

        const write = (who: Principal.Principal, n: number) =>
          Effect.forEach(
            Array.from({ length: 12 }, (_, i) => i),
            (i) =>
              catalog
                .upsert("categories", {
                  external_id: `w${n}-c${i % 4}`,
                  name: `v${i}`,
                  ...(i >= 4 ? { expected_revision: Math.floor(i / 4) } : {})
                })
                .pipe(Effect.provideService(Principal.CurrentPrincipal, who)),
            { discard: true }
          )

        const readerFiber = yield* Effect.forkChild(follow)
        yield* Effect.forEach(writers, write, { concurrency: "unbounded", discard: true })
        yield* Ref.set(done, true)
        yield* Fiber.join(readerFiber)

        const all = yield* feed.read({ limit: 100 }).pipe(Effect.provideService(Principal.CurrentPrincipal, reader))
        const rest = yield* feed
          .read({ limit: 100, cursor: all.next_cursor })
          .pipe(Effect.provideService(Principal.CurrentPrincipal, reader))
        const everything = [...all.records, ...rest.records].map((r) => ({ id: r.id, revision: r.revision }))
        expect(everything).toHaveLength(10 * 12)
        expect(seen).toEqual(everything)
        const last = new Map<string, number>()
        for (const change of seen) {
          expect(change.revision).toBe((last.get(change.id) ?? 0) + 1)
          last.set(change.id, change.revision)
        }
      })
    )
  })
})

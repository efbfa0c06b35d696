import { describe, expect } from "@effect/vitest"
import { Effect, Exit, Option } from "effect"
import { CatalogRepository } from "../Catalog/CatalogRepository.js"
import { Mappings } from "../Catalog/Mappings.js"
import { ChangeLog } from "../Changes/ChangeLog.js"
import { Transactor } from "../Shared/Transactor.js"
import { companyId, connectionId, mapping, type PortCases, record, scopeOf } from "./PersistenceFixtures.js"

/** The Transactor's part of the persistence conformance suite (`runConformance`): commit and rollback of the other ports' writes. */
export const transactorCases: PortCases = (it) => {
  describe("Transactor", () => {
    it.effect("commits together and rolls back together", () =>
      Effect.gen(function* () {
        const repo = yield* CatalogRepository
        const mappings = yield* Mappings
        const tx = yield* Transactor
        const changes = yield* ChangeLog
        const company = companyId()
        const scope = scopeOf(company, connectionId())
        const kept = record(company)
        const lost = record(company)
        yield* tx.withTransaction(Effect.all([repo.insert(kept), mappings.insert(mapping(scope, "kept", kept.id))]))
        const exit = yield* Effect.exit(
          tx.withTransaction(
            Effect.gen(function* () {
              yield* repo.insert(lost)
              yield* mappings.insert(mapping(scope, "lost", lost.id))
              yield* changes.append({
                companyId: company,
                resource: "products",
                recordId: lost.id,
                revision: 1,
                operation: "created",
                originConnectionId: scope.connectionId,
                at: "2026-01-01T00:00:00.000Z"
              })
              yield* mappings.insert(mapping(scope, "kept", lost.id))
            })
          )
        )
        expect(Exit.isFailure(exit)).toBe(true)
        expect(Option.isSome(yield* repo.get(company, "products", kept.id))).toBe(true)
        expect(Option.isNone(yield* repo.get(company, "products", lost.id))).toBe(true)
        expect(Option.isNone(yield* mappings.find(scope, "lost"))).toBe(true)
      })
    )

    it.effect("rolls back on a defect and supports nesting", () =>
      Effect.gen(function* () {
        const repo = yield* CatalogRepository
        const tx = yield* Transactor
        const company = companyId()
        const a = record(company)
        const b = record(company)
        const exit = yield* Effect.exit(
          tx.withTransaction(Effect.andThen(repo.insert(a), Effect.die(new Error("boom"))))
        )
        expect(Exit.isFailure(exit)).toBe(true)
        expect(Option.isNone(yield* repo.get(company, "products", a.id))).toBe(true)
        yield* tx.withTransaction(tx.withTransaction(repo.insert(b)))
        expect(Option.isSome(yield* repo.get(company, "products", b.id))).toBe(true)
      })
    )
  })
}

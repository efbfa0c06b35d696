import { Context, Effect, Layer } from "effect"
import { CatalogRepository } from "../Catalog/CatalogRepository.js"
import { Mappings } from "../Catalog/Mappings.js"
import { type ChangeEntry, ChangeLog } from "../Changes/ChangeLog.js"
import { Transactor } from "../Shared/Transactor.js"
import { makeRepository } from "./InMemoryCatalogRepository.js"
import { makeChangeLog } from "./InMemoryChangeLog.js"
import { makeMappings } from "./InMemoryMappings.js"
import { emptyState, makeTransactor } from "./InMemoryState.js"

export { accountsLayer } from "./InMemoryAccounts.js"
export { idempotencyLayer } from "./InMemoryIdempotency.js"
export { peopleLayer } from "./InMemoryPeople.js"

/**
 * In-memory implementations of the persistence ports, sharing one state: for domain tests without a
 * database and as the reference the conformance suite holds the SQL adapters to. Transactions are
 * serialised and restore a snapshot on failure.
 */
export const make = Effect.gen(function* () {
  const state = emptyState()
  return {
    repository: makeRepository(state),
    mappings: makeMappings(state),
    transactor: yield* makeTransactor(state),
    changeLog: makeChangeLog(state),
    changes: () => state.changes
  } as const
})

/** Read access to what the in-memory ports hold, for assertions. */
export class Inspect extends Context.Service<Inspect, { readonly changes: () => ReadonlyArray<ChangeEntry> }>()(
  "@catalog-sync/core/memory/InMemory/Inspect"
) {}

/**
 * All persistence ports, in memory, sharing one state, plus Inspect.
 *
 * @example
 * ```ts
 * import { CatalogService, Ids } from "@catalog-sync/core"
 * import { InMemory } from "@catalog-sync/core/memory"
 * import { Layer } from "effect"
 *
 * // The catalog use cases without a database: provide `Principal.CurrentPrincipal` to run them.
 * const CatalogLive = CatalogService.CatalogService.Default.pipe(
 *   Layer.provide(InMemory.layer),
 *   Layer.provide(Ids.IdsLive)
 * )
 * ```
 */
export const layer: Layer.Layer<CatalogRepository | Mappings | Transactor | ChangeLog | Inspect> = Layer.effectContext(
  Effect.map(make, (ports) =>
    Context.make(CatalogRepository, ports.repository).pipe(
      Context.add(Mappings, ports.mappings),
      Context.add(Transactor, ports.transactor),
      Context.add(ChangeLog, ports.changeLog),
      Context.add(Inspect, { changes: ports.changes })
    )
  )
)

import { Effect } from "effect"
import type { Principal } from "../../Auth/Principal.js"
import { Mappings } from "../../Catalog/Mappings.js"
import { renderCard, sourceResource, type StockCard } from "../../Inventory/Inventory.js"

/**
 * Renders stock cards for the caller: each card with its source's external id in the caller's connection,
 * looked up in one round trip per source kind.
 */
export const makeCardRenderer = Effect.gen(function* () {
  const mappings = yield* Mappings
  return (principal: Principal, cards: ReadonlyArray<StockCard>) =>
    Effect.gen(function* () {
      const out = new Map<string, string>()
      for (const kind of ["product", "option"] as const) {
        const sources = cards.filter((c) => c.sourceKind === kind).map((c) => c.sourceId)
        if (sources.length === 0) continue
        const found = yield* mappings.externalIdsOf(
          { companyId: principal.company.id, connectionId: principal.connectionId, resource: sourceResource(kind) },
          sources
        )
        for (const [id, externalId] of found) out.set(`${kind}|${id}`, externalId)
      }
      return (card: StockCard) => renderCard(card, out.get(`${card.sourceKind}|${card.sourceId}`) ?? null)
    })
})

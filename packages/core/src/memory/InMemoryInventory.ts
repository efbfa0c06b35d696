import { Context, Effect, Layer, Option } from "effect"
import { RevisionConflict } from "../Shared/Errors.js"
import {
  byLocation,
  type StockBalance,
  type StockCard,
  type StockEvent,
  type StockItem
} from "../Inventory/Inventory.js"
import { InventoryRepository } from "../Inventory/InventoryRepository.js"
import { Transactor } from "../Shared/Transactor.js"

interface State {
  items: Map<string, StockItem>
  balances: Map<string, StockBalance>
  events: Map<string, StockEvent>
}

const itemKey = (companyId: string, id: string) => `${companyId}|${id}`
const sourceKey = (item: Pick<StockItem, "companyId" | "sourceKind" | "sourceId">) =>
  `${item.companyId}|${item.sourceKind}|${item.sourceId}`
const balanceKey = (b: Pick<StockBalance, "companyId" | "itemId" | "locationId">) =>
  `${b.companyId}|${b.itemId}|${b.locationId}`

/**
 * The inventory port in memory, the reference the conformance suite holds the SQL adapter to. It keeps its
 * own state, so it wraps the Transactor it is given: each transaction (or nested one) snapshots the
 * inventory state and restores it on failure, as the in-memory catalog ports do with theirs.
 */
export const layer: Layer.Layer<InventoryRepository | Transactor, never, Transactor> = Layer.effectContext(
  Effect.gen(function* () {
    const base = yield* Transactor
    const state: State = { items: new Map(), balances: new Map(), events: new Map() }

    const cardOf = (item: StockItem): StockCard => ({
      ...item,
      balances: Array.from(state.balances.values())
        .filter((b) => b.companyId === item.companyId && b.itemId === item.id)
        .sort(byLocation)
    })
    const bySource = (key: string) => Array.from(state.items.values()).find((i) => sourceKey(i) === key)

    const restoringOnFailure = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.suspend(() => {
        const snapshot: State = {
          items: new Map(state.items),
          balances: new Map(state.balances),
          events: new Map(state.events)
        }
        return effect.pipe(
          Effect.onExit((exit) =>
            Effect.sync(() => {
              if (exit._tag === "Failure") Object.assign(state, snapshot)
            })
          )
        )
      })
    const transactor = Transactor.of({
      withTransaction: (effect) => base.withTransaction(restoringOnFailure(effect)),
      // The base joins an open transaction, whose own snapshot then covers this state too.
      atomically: (effect) => base.atomically(restoringOnFailure(effect))
    })

    const repository = InventoryRepository.of({
      findItem: (companyId, id) =>
        Effect.sync(() => Option.map(Option.fromNullishOr(state.items.get(itemKey(companyId, id))), cardOf)),
      findItemBySource: (companyId, sourceKind, sourceId) =>
        Effect.sync(() =>
          Option.map(Option.fromNullishOr(bySource(sourceKey({ companyId, sourceKind, sourceId }))), cardOf)
        ),
      ensureItem: (item) =>
        Effect.sync(() => {
          const existing = bySource(sourceKey(item))
          if (existing !== undefined) return cardOf(existing)
          state.items.set(itemKey(item.companyId, item.id), item)
          return cardOf(item)
        }),
      listItems: (companyId, query) =>
        Effect.sync(() =>
          Array.from(state.items.values())
            .filter(
              (i) =>
                i.companyId === companyId &&
                (query.cursor === undefined || i.id > query.cursor) &&
                (query.sourceKind === undefined || i.sourceKind === query.sourceKind) &&
                (query.sourceId === undefined || i.sourceId === query.sourceId) &&
                (query.locationId === undefined ||
                  state.balances.has(balanceKey({ companyId, itemId: i.id, locationId: query.locationId })))
            )
            .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
            .slice(0, query.limit)
            .map(cardOf)
        ),
      saveBalance: (balance, expectedRevision) =>
        Effect.suspend(() => {
          const key = balanceKey(balance)
          const current = state.balances.get(key)?.revision ?? 0
          if (current !== expectedRevision) {
            return Effect.fail(
              new RevisionConflict({
                message: `the balance is at revision ${current}, not ${expectedRevision}`,
                current_revision: current,
                expected_revision: expectedRevision
              })
            )
          }
          if (!state.items.has(itemKey(balance.companyId, balance.itemId))) {
            return Effect.die(new Error(`balance of a missing stock card ${balance.itemId}`))
          }
          state.balances.set(key, balance)
          return Effect.void
        }),
      findEvent: (companyId, eventId) =>
        Effect.sync(() => Option.fromNullishOr(state.events.get(`${companyId}|${eventId}`))),
      insertEvent: (event) =>
        Effect.sync(() => {
          const key = `${event.companyId}|${event.eventId}`
          if (state.events.has(key)) return false
          state.events.set(key, event)
          return true
        })
    })

    return Context.make(InventoryRepository, repository).pipe(Context.add(Transactor, transactor))
  })
)

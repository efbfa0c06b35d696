import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { Accounts } from "../Auth/Accounts.js"
import { AuditLog, makeRecorder } from "../Audit/AuditLog.js"
import { RecordNotFound, ValidationFailed } from "../Shared/Errors.js"
import { CatalogRepository } from "../Catalog/CatalogRepository.js"
import { decodeStrict } from "../Catalog/Decode.js"
import { ChangeLog } from "../Changes/ChangeLog.js"
import { canonical, Quantity } from "../internal/Shared/Decimal.js"
import { type CompanyId, type ConnectionId, Ids, type RecordId } from "../Shared/Ids.js"
import { Transactor } from "../Shared/Transactor.js"
import { renderCard, sourceResource, type StockCardRecord, withBalance } from "../Inventory/Inventory.js"
import { StockRuleViolation } from "../Inventory/InventoryErrors.js"
import { InventoryRepository } from "../Inventory/InventoryRepository.js"
import { countsInPieces, empty, violatesWholeNumbers } from "../internal/Inventory/StockRules.js"

/** Changes made by the platform (orders, purchases, the admin CLI) carry this origin in the change feed. */
export const platformOrigin = "00000000-0000-0000-0000-000000000000" as ConnectionId

/** A reservation change: the reserved and incoming quantities to set. */
export const ReservationInput = Schema.Struct({
  reserved: Schema.optionalKey(Quantity),
  incoming: Schema.optionalKey(Quantity)
})

/**
 * Platform-side stock changes. Reserved and incoming quantities come from orders and purchases, outside
 * the integration API; the admin CLI sets them through here (so that the reserved rule can be shown).
 * Each change is recorded in the audit log by the current `Actor`, in the change's transaction.
 */
export class InventoryAdmin extends Context.Service<InventoryAdmin>()("@catalog-sync/core/InventoryAdmin", {
  make: Effect.gen(function* () {
    const repository = yield* InventoryRepository
    const catalog = yield* CatalogRepository
    const accounts = yield* Accounts
    const transactor = yield* Transactor
    const changeLog = yield* ChangeLog
    const audited = makeRecorder(yield* AuditLog, yield* Ids)

    /**
     * Sets the reserved and/or incoming quantity of one location's balance (creating the balance if
     * needed); physical stock is kept. Bumps the location revision, so writers holding the old one get a
     * revision conflict. Reserved may exceed physical stock (orders can be backordered); `out` and `set`
     * writes then cannot go below it.
     */
    const reserve = (companyId: string, itemId: string, locationId: string, input: unknown) =>
      Effect.gen(function* () {
        const fields = yield* Effect.fromResult(decodeStrict(ReservationInput, input, "the reservation"))
        if (fields.reserved === undefined && fields.incoming === undefined) {
          return yield* new ValidationFailed({
            message: "give reserved and/or incoming",
            issues: [{ path: "$", message: "give reserved and/or incoming" }]
          })
        }
        const company = companyId as CompanyId
        const locations = yield* accounts.listLocations(company)
        if (!locations.some((l) => l.id === locationId)) {
          return yield* new StockRuleViolation({
            reason: "unknown_location",
            message: `no location ${locationId} in company ${companyId}`,
            issues: [{ path: "$.location_id", message: `no location ${locationId} in this company` }]
          })
        }
        const save = Effect.gen(function* () {
          const found = yield* repository.findItem(company, itemId as RecordId)
          if (Option.isNone(found)) {
            return yield* new RecordNotFound({
              resource: "inventory",
              message: `no inventory item ${itemId} in company ${companyId}`
            })
          }
          const card = found.value
          const source = yield* catalog.get(company, sourceResource(card.sourceKind), card.sourceId)
          const pieces = countsInPieces(
            card.sourceKind,
            Option.match(source, { onNone: () => null, onSome: (r) => r.data.unit })
          )
          for (const [key, value] of Object.entries(fields)) {
            if (value !== undefined && violatesWholeNumbers(value, pieces)) {
              return yield* new StockRuleViolation({
                reason: "quantity_not_whole",
                message: `${key} must be a whole number for a product counted in pieces`,
                issues: [{ path: `$.${key}`, message: "must be a whole number" }]
              })
            }
          }
          const balance = card.balances.find((b) => b.locationId === locationId)
          const current = balance ?? empty
          const at = new Date(yield* Clock.currentTimeMillis).toISOString()
          const saved = {
            companyId: company,
            itemId: card.id,
            locationId,
            physical: current.physical,
            reserved: fields.reserved === undefined ? current.reserved : canonical(fields.reserved),
            incoming: fields.incoming === undefined ? current.incoming : canonical(fields.incoming),
            revision: (balance?.revision ?? 0) + 1,
            updatedAt: at
          }
          yield* repository.saveBalance(saved, balance?.revision ?? 0)
          yield* changeLog.append({
            companyId: company,
            resource: "inventory",
            recordId: card.id,
            revision: saved.revision,
            operation: "updated",
            originConnectionId: platformOrigin,
            at,
            parts: ["stock"]
          })
          return renderCard(withBalance(card, saved), null) satisfies StockCardRecord
        })
        return yield* transactor.withTransaction(
          audited(save, () => ({
            action: "stock.reserve",
            company_id: company,
            target: itemId,
            details: {
              location_id: locationId,
              ...(fields.reserved === undefined ? {} : { reserved: canonical(fields.reserved) }),
              ...(fields.incoming === undefined ? {} : { incoming: canonical(fields.incoming) })
            }
          }))
        )
      })

    return { reserve } as const
  })
}) {
  /** The service over its ports (the layer Effect 3's `Effect.Service` generated). */
  static readonly Default = Layer.effect(this, this.make)
}

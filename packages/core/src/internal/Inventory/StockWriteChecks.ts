import { Effect, Option } from "effect"
import { Accounts } from "../../Auth/Accounts.js"
import type { Principal } from "../../Auth/Principal.js"
import { CatalogRepository } from "../../Catalog/CatalogRepository.js"
import { Mappings } from "../../Catalog/Mappings.js"
import { canonical } from "../Shared/Decimal.js"
import { RuleViolation } from "../../Shared/Errors.js"
import type { RecordId } from "../../Shared/Ids.js"
import { describe } from "../../Shared/Reference.js"
import { sourceResource, type StockWrite } from "../../Inventory/Inventory.js"
import { LocationNotWritable, StockRuleViolation } from "../../Inventory/InventoryErrors.js"

/** One issue at `path`, as the error bodies list them. */
export const issue = (path: string, message: string) => [{ path, message }]

/** What makes two writes with one event_id the same event: the connection and the body by value. */
export const fingerprintOf = (principal: Principal, body: StockWrite): string =>
  JSON.stringify([
    principal.connectionId,
    body.event_id,
    body.source_kind,
    typeof body.source_id === "string" ? body.source_id : { external_id: body.source_id.external_id },
    body.location_id,
    body.action,
    canonical(body.quantity),
    body.revision,
    body.note
  ])

/** The checks of a stock write against the catalog and the company's locations. */
export const makeStockWriteChecks = Effect.gen(function* () {
  const catalog = yield* CatalogRepository
  const mappings = yield* Mappings
  const accounts = yield* Accounts

  /** The source record a StockWrite names, resolved like catalog References. */
  const resolveSource = (principal: Principal, body: StockWrite) =>
    Effect.gen(function* () {
      const resource = sourceResource(body.source_kind)
      const ref = body.source_id
      const id =
        typeof ref === "string"
          ? (ref as RecordId)
          : Option.getOrUndefined(
              yield* mappings.find(
                { companyId: principal.company.id, connectionId: principal.connectionId, resource },
                ref.external_id
              )
            )
      const record = id === undefined ? Option.none() : yield* catalog.get(principal.company.id, resource, id)
      if (Option.isNone(record)) {
        const where = typeof ref === "string" ? "company" : "connection"
        return yield* new RuleViolation({
          reason: "unresolved_reference",
          message: `$.source_id: no ${resource} record ${describe(ref)} in this ${where}`,
          issues: issue("$.source_id", `no ${resource} record ${describe(ref)} in this ${where}`)
        })
      }
      if (body.source_kind === "product" && record.value.data.kind === "bundle") {
        return yield* new StockRuleViolation({
          reason: "source_not_stocked",
          message: "a bundle has no stock of its own; write the stock of its component products",
          issues: issue("$.source_id", "is a bundle product")
        })
      }
      return record.value
    })

  /** The location must belong to the company and be assigned to the connection as writable. */
  const checkLocation = (principal: Principal, locationId: string) =>
    Effect.gen(function* () {
      const locations = yield* accounts.listLocations(principal.company.id)
      if (!locations.some((l) => l.id === locationId)) {
        return yield* new StockRuleViolation({
          reason: "unknown_location",
          message: `$.location_id: no location ${locationId} in this company`,
          issues: issue("$.location_id", `no location ${locationId} in this company`)
        })
      }
      const assigned = (yield* accounts.assignments(principal.connectionId)).find((a) => a.location_id === locationId)
      if (assigned === undefined || !assigned.writable) {
        return yield* new LocationNotWritable({
          message: `location ${locationId} is not assigned to this connection as writable`,
          location_id: locationId
        })
      }
    })

  return { resolveSource, checkLocation } as const
})

/**
 * A written catalog plan: what the body arbitraries generate against. Writing a plan through the catalog
 * use case gives every planned record its uuid (and every selection field its id), at revision 1.
 */
import { Clock, Effect } from "effect"
import { Accounts } from "../Auth/Accounts.js"
import type { Company, CompanySettings } from "../Auth/Company.js"
import type { Principal } from "../Auth/Principal.js"
import { CurrentPrincipal } from "../Auth/Principal.js"
import { CatalogService } from "../Catalog/CatalogService.js"
import { decodeUpsert } from "../Catalog/Decode.js"
import type { ResourceName } from "../Resources/Resource.js"
import {
  type CatalogPlan,
  materialize,
  type PlannedCategory,
  type PlannedGroup,
  type PlannedOption,
  type PlannedProduct,
  type PlannedRecord,
  type PlannedShowcase,
  type PlannedType
} from "./arbitraries/Catalogs.js"
import { fullPrincipal } from "./arbitraries/Settings.js"
import { all as allScopes } from "../Shared/Scope.js"

/** The planned records of one resource, typed. */
export interface PlannedByResource {
  readonly categories: ReadonlyArray<PlannedCategory>
  readonly collections: ReadonlyArray<PlannedShowcase>
  readonly brands: ReadonlyArray<PlannedShowcase>
  readonly "customization-types": ReadonlyArray<PlannedType>
  readonly "customization-groups": ReadonlyArray<PlannedGroup>
  readonly "customization-options": ReadonlyArray<PlannedOption>
  readonly products: ReadonlyArray<PlannedProduct>
}

/** Planned records grouped by resource. */
export const byResource = (records: ReadonlyArray<PlannedRecord>): PlannedByResource => {
  const of = <R extends PlannedRecord>(resource: ResourceName) =>
    records.filter((record): record is R => record.resource === resource)
  return {
    categories: of("categories"),
    collections: of("collections"),
    brands: of("brands"),
    "customization-types": of("customization-types"),
    "customization-groups": of("customization-groups"),
    "customization-options": of("customization-options"),
    products: of("products")
  }
}

/** A plan as written: each record at revision 1, its uuid known. */
export interface World {
  readonly plan: CatalogPlan
  /** Who wrote it (every scope, the stock features): bodies generated against the world act as this principal. */
  readonly principal: Principal
  readonly records: PlannedByResource
  /** The uuid of a planned record. */
  readonly idOf: (resource: ResourceName, externalId: string) => string
  /** The id the use case gave a product's selection field. */
  readonly fieldIdOf: (product: string, field: string) => string
}

const key = (resource: ResourceName, externalId: string) => `${resource}|${externalId}`

/**
 * Writes `plan` in its order through `CatalogService.upsert` (decoded as the HTTP API decodes), as a
 * principal of a new connection (`connectionId`, or a random one) with every scope, and returns the world
 * it made. Fails with the first refusal: a plan from `Arbitraries.catalog` is always accepted.
 */
export const write = (plan: CatalogPlan, connectionId: string = globalThis.crypto.randomUUID()) =>
  Effect.gen(function* () {
    const catalog = yield* CatalogService
    const principal = fullPrincipal(plan.settings, connectionId)
    const ids = new Map<string, string>()
    const fieldIds = new Map<string, string>()
    const idOf = (resource: ResourceName, externalId: string) => ids.get(key(resource, externalId))
    for (const record of plan.records) {
      const body = yield* Effect.fromResult(decodeUpsert(record.resource, materialize(record.body, idOf)))
      const written = yield* catalog.upsert(record.resource, body)
      ids.set(key(record.resource, record.externalId), written.record.id)
      if (record.resource === "products") {
        for (const field of (
          written.record as { readonly fields: ReadonlyArray<{ id: string; external_id: string | null }> }
        ).fields)
          fieldIds.set(`${record.externalId}|${field.external_id}`, field.id)
      }
    }
    const world: World = {
      plan,
      principal,
      records: byResource(plan.records),
      idOf: (resource, externalId) => {
        const id = idOf(resource, externalId)
        if (id === undefined) throw new Error(`no ${resource} ${externalId} in this world`)
        return id
      },
      fieldIdOf: (product, field) => {
        const id = fieldIds.get(`${product}|${field}`)
        if (id === undefined) throw new Error(`product ${product} has no field ${field} in this world`)
        return id
      }
    }
    return world
  }).pipe(Effect.provideService(CurrentPrincipal, fullPrincipal(plan.settings, connectionId)))

/** A company as the platform keeps it, enabled with every scope granted and the stock features active. */
export const enabledCompany = (settings: CompanySettings, name: string, at: string): Company => ({
  ...settings,
  name,
  enabled: true,
  subscription_active: true,
  stock_package: true,
  inventory_module: true,
  granted_scopes: allScopes,
  domains: [],
  created_at: at
})

/**
 * Registers the world's company, its principal's connection and a stock location the connection may write
 * (as the platform does before stock writes are possible), and returns the location's id.
 */
export const stockLocation = (world: World) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const at = new Date(yield* Clock.currentTimeMillis).toISOString()
    const company = world.plan.settings
    yield* accounts.saveCompany(enabledCompany(company, "Kit", at))
    yield* accounts.saveConnection({
      id: world.principal.connectionId,
      company_id: company.id,
      name: "Kit",
      enabled: true,
      created_at: at
    })
    const location = globalThis.crypto.randomUUID()
    yield* accounts.saveLocation({ id: location, company_id: company.id, name: "Warehouse", created_at: at })
    yield* accounts.assignLocation({
      connection_id: world.principal.connectionId,
      location_id: location,
      writable: true
    })
    return location
  })

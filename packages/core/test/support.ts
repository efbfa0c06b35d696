import { Effect, Layer } from "effect"
import { CatalogService, type Page } from "../src/Catalog/CatalogService.js"
import type { Document } from "../src/internal/Resources/ResourceDefinition.js"
import type { ResourceName } from "../src/Resources/Resource.js"
import { Decode } from "../src/index.js"
import { Accounts } from "../src/Auth/Accounts.js"
import type { Company, CompanySettings } from "../src/Auth/Company.js"
import { CurrentPrincipal, type Principal } from "../src/Auth/Principal.js"
import { type CompanyId, type ConnectionId, IdsLive } from "../src/Shared/Ids.js"
import { all as allScopes, type Scope } from "../src/Shared/Scope.js"
import { InMemory } from "../src/testing.js"

export const uuid = () => globalThis.crypto.randomUUID()

export const company = (overrides: Partial<CompanySettings> = {}): CompanySettings => ({
  id: uuid() as CompanyId,
  currency: "EUR",
  main_language: "en",
  languages: ["en", "de", "fr"],
  tax_model: "inclusive",
  tax_rates: ["20.00", "10.00"],
  storage_slug: "acme",
  ...overrides
})

export const principal = (
  settings: CompanySettings = company(),
  scopes: ReadonlyArray<Scope> = allScopes,
  connectionId: string = uuid()
): Principal => ({
  company: settings,
  connectionId: connectionId as ConnectionId,
  keyId: uuid(),
  scopes: new Set(scopes),
  features: { stock: true }
})

/** The catalog use cases over fresh in-memory ports. */
export const TestLayer = CatalogService.Default.pipe(Layer.provideMerge(InMemory.layer), Layer.provideMerge(IdsLive))

export const as = (who: Principal) => Effect.provideService(CurrentPrincipal, who)

/**
 * Tests read any field of a record, whatever its resource and view: the helpers below answer records as
 * plain documents (a typed record or price view always is one).
 */
type Loose<T extends { readonly record: Document }> = Omit<T, "record"> & { readonly record: Document }
const loose = <T extends { readonly record: Document }>(result: T): Loose<T> => result

/** Decodes like the HTTP layer does, then upserts. */
export const upsert = (resource: ResourceName, body: unknown) =>
  Effect.flatMap(Effect.fromResult(Decode.decodeUpsert(resource, body)), (decoded) =>
    Effect.flatMap(CatalogService, (service) => Effect.map(service.upsert(resource, decoded), loose))
  )

export const get = (resource: ResourceName, id: string) =>
  Effect.flatMap(CatalogService, (service) =>
    Effect.map(service.get(resource, id as never), (record): Document => record)
  )

export const list = (resource: ResourceName, params: Partial<Parameters<CatalogService["Service"]["list"]>[1]> = {}) =>
  Effect.flatMap(CatalogService, (service) =>
    Effect.map(
      service.list(resource, { limit: 50, ...params }),
      (page): Omit<Page, "records"> & { readonly records: ReadonlyArray<Document> } => page
    )
  )

export const archive = (id: string, expectedRevision: number) =>
  Effect.flatMap(CatalogService, (service) => Effect.map(service.archive(id as never, expectedRevision), loose))

/** Creates a category and returns its record. */
export const category = (externalId: string, extra: Document = {}) =>
  Effect.map(
    upsert("categories", { external_id: externalId, name: `Category ${externalId}`, ...extra }),
    (r) => r.record
  )

/**
 * A company and connection that the Accounts port knows of (granted `granted`), and a principal of that
 * connection with `scopes` (all by default): for use cases that read the company or connection back.
 */
export const registeredTenant = (granted: ReadonlyArray<Scope>, scopes?: ReadonlyArray<Scope>) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const settings = company({ id: uuid() as CompanyId, storage_slug: `slug-${uuid()}` })
    const stored: Company = {
      ...settings,
      name: "Acme",
      enabled: true,
      subscription_active: true,
      stock_package: false,
      inventory_module: false,
      granted_scopes: granted,
      domains: [],
      created_at: "2026-01-01T00:00:00.000Z"
    }
    yield* accounts.saveCompany(stored)
    const who = principal(settings, scopes)
    yield* accounts.saveConnection({
      id: who.connectionId,
      company_id: settings.id,
      name: "ERP",
      enabled: true,
      created_at: stored.created_at
    })
    // The principal's key, so that jobs it submits may act for it (they check the key as requests do).
    yield* insertKeyOf(who)
    return who
  })

const insertKeyOf = (who: Principal) =>
  Effect.flatMap(Accounts, (accounts) =>
    accounts.insertKey(
      {
        id: who.keyId,
        company_id: who.company.id,
        connection_id: who.connectionId,
        name: "test",
        scopes: Array.from(who.scopes),
        created_at: "2026-01-01T00:00:00.000Z",
        expires_at: "2999-01-01T00:00:00.000Z",
        revoked_at: null
      },
      "unused-hash"
    )
  )

/**
 * Another active key of a registered tenant: of the same connection, or of a new connection of the same
 * company when `newConnection` is set. Returns the principal acting with it.
 */
export const anotherKey = (who: Principal, options: { readonly newConnection?: boolean } = {}) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const other: Principal = {
      ...who,
      keyId: uuid(),
      connectionId: options.newConnection === true ? (uuid() as ConnectionId) : who.connectionId
    }
    if (options.newConnection === true) {
      yield* accounts.saveConnection({
        id: other.connectionId,
        company_id: who.company.id,
        name: "Shop",
        enabled: true,
        created_at: "2026-01-01T00:00:00.000Z"
      })
    }
    yield* insertKeyOf(other)
    return other
  })

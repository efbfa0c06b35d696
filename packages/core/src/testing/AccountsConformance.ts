import { expect, layer } from "@effect/vitest"
import { Effect, type Layer, Option } from "effect"
import { Accounts, type Location } from "../Auth/Accounts.js"
import { type ApiKey, generate } from "../Auth/ApiKey.js"
import type { Company, Connection } from "../Auth/Company.js"
import type { CompanyId, ConnectionId } from "../Shared/Ids.js"

const uuid = () => globalThis.crypto.randomUUID()

/** Timestamps in a known order, so that lists in creation order can be asserted. */
const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString()

const company = (overrides: Partial<Company> = {}): Company => {
  const id = uuid()
  return {
    id: id as CompanyId,
    currency: "EUR",
    main_language: "en",
    languages: ["en", "pt-BR", "de"],
    tax_model: "inclusive",
    tax_rates: ["20.00", "5.5", "0"],
    storage_slug: `slug-${id}`,
    name: "Acme",
    enabled: true,
    subscription_active: true,
    stock_package: false,
    inventory_module: true,
    granted_scopes: ["catalog:read", "catalog:write", "media:read"],
    // Not in alphabetical order: the company's own order must survive.
    domains: [`shop-${id}.example`, `api-${id}.example`],
    created_at: at(0),
    ...overrides
  }
}

const connection = (owner: Company, n = 0): Connection => ({
  id: uuid() as ConnectionId,
  company_id: owner.id,
  name: `ERP ${n}`,
  enabled: true,
  created_at: at(n)
})

const apiKey = (owner: Connection, n = 0): ApiKey => ({
  id: generate().keyId,
  company_id: owner.company_id,
  connection_id: owner.id,
  name: `key ${n}`,
  scopes: ["catalog:read", "prices:write"],
  created_at: at(n),
  expires_at: at(n + 86_400),
  revoked_at: null
})

const location = (owner: Company, n = 0): Location => ({
  id: uuid(),
  company_id: owner.id,
  name: `Store ${n}`,
  created_at: at(n)
})

const byLocation = <A extends { readonly location_id: string }>(items: ReadonlyArray<A>) =>
  [...items].sort((a, b) => (a.location_id < b.location_id ? -1 : a.location_id > b.location_id ? 1 : 0))

/**
 * The contract of the `Accounts` port, run by each adapter against its own layer. Each test works in
 * fresh ids, slugs and domains, so one layer serves the whole suite; parents are saved before their
 * children (company, connection, key), as the administration use cases do and foreign keys demand.
 */
export const runAccountsConformance = (name: string, accounts: Layer.Layer<Accounts, unknown>) =>
  layer(accounts, { timeout: 60_000 })(`Accounts conformance: ${name}`, (it) => {
    it.effect("stores a company with its JSON fields and domains, and finds it by domain", () =>
      Effect.gen(function* () {
        const store = yield* Accounts
        const c = company()
        yield* store.saveCompany(c)
        expect(Option.getOrThrow(yield* store.getCompany(c.id))).toEqual(c)
        expect((yield* store.listCompanies).filter((x) => x.id === c.id)).toEqual([c])
        for (const domain of c.domains) expect(yield* store.companyOfDomain(domain)).toEqual(Option.some(c.id))
        expect(Option.isNone(yield* store.companyOfDomain(`other-${uuid()}.example`))).toBe(true)
        expect(Option.isNone(yield* store.getCompany(uuid()))).toBe(true)
        expect(Option.isNone(yield* store.getCompany("not a uuid"))).toBe(true)

        const bare = company({
          domains: [],
          languages: ["fr"],
          tax_rates: [],
          granted_scopes: [],
          tax_model: "unconfigured"
        })
        yield* store.saveCompany(bare)
        expect(Option.getOrThrow(yield* store.getCompany(bare.id))).toEqual(bare)
      })
    )

    it.effect("saving a company again replaces it and its domains", () =>
      Effect.gen(function* () {
        const store = yield* Accounts
        const c = company()
        yield* store.saveCompany(c)
        const [kept, dropped] = c.domains
        const added = `new-${uuid()}.example`
        const updated: Company = {
          ...c,
          name: "Acme Ltd",
          enabled: false,
          subscription_active: false,
          stock_package: true,
          languages: ["en"],
          tax_rates: ["7.70"],
          granted_scopes: ["catalog:read"],
          domains: [added, kept!]
        }
        yield* store.saveCompany(updated)
        expect(Option.getOrThrow(yield* store.getCompany(c.id))).toEqual(updated)
        expect(yield* store.companyOfDomain(added)).toEqual(Option.some(c.id))
        expect(yield* store.companyOfDomain(kept!)).toEqual(Option.some(c.id))
        expect(Option.isNone(yield* store.companyOfDomain(dropped!))).toBe(true)
        // A dropped domain is free for another company.
        const other = company({ domains: [dropped!] })
        yield* store.saveCompany(other)
        expect(yield* store.companyOfDomain(dropped!)).toEqual(Option.some(other.id))
      })
    )

    it.effect("refuses a storage_slug or a domain of another company and changes nothing", () =>
      Effect.gen(function* () {
        const store = yield* Accounts
        const a = company()
        const b = company()
        yield* store.saveCompany(a)
        yield* store.saveCompany(b)

        const slugTaken = yield* Effect.flip(store.saveCompany(company({ storage_slug: a.storage_slug })))
        expect(slugTaken).toMatchObject({ _tag: "AccountConflict", field: "storage_slug", code: "account_conflict" })
        const domainTaken = company({ domains: [`free-${uuid()}.example`, a.domains[1]!] })
        expect(yield* Effect.flip(store.saveCompany(domainTaken))).toMatchObject({
          _tag: "AccountConflict",
          field: "domains"
        })
        expect(Option.isNone(yield* store.getCompany(domainTaken.id))).toBe(true)
        expect(Option.isNone(yield* store.companyOfDomain(domainTaken.domains[0]!))).toBe(true)

        // A failed update leaves the company as it was, domains included.
        const stealing = { ...b, name: "Thief", domains: [`more-${uuid()}.example`, a.domains[0]!] }
        expect(yield* Effect.flip(store.saveCompany(stealing))).toMatchObject({ field: "domains" })
        expect(
          yield* Effect.flip(store.saveCompany({ ...b, name: "Thief", storage_slug: a.storage_slug }))
        ).toMatchObject({
          field: "storage_slug"
        })
        expect(Option.getOrThrow(yield* store.getCompany(b.id))).toEqual(b)
        expect(yield* store.companyOfDomain(a.domains[0]!)).toEqual(Option.some(a.id))
        expect(Option.isNone(yield* store.companyOfDomain(stealing.domains[0]!))).toBe(true)
        // Its own slug and domains are no conflict.
        yield* store.saveCompany({ ...a, name: "Acme again" })
      })
    )

    it.effect("findKey returns the key with its hash, connection and company, and none for an unknown id", () =>
      Effect.gen(function* () {
        const store = yield* Accounts
        const c = company()
        const conn = connection(c)
        const key = apiKey(conn)
        yield* store.saveCompany(c)
        yield* store.saveConnection(conn)
        yield* store.insertKey(key, "hash-of-secret")
        expect(Option.getOrThrow(yield* store.findKey(key.id))).toEqual({
          key,
          secretHash: "hash-of-secret",
          connection: conn,
          company: c,
          domainOwner: Option.none()
        })
        expect(Option.isNone(yield* store.findKey(generate().keyId))).toBe(true)
        expect(Option.isNone(yield* store.findKey(""))).toBe(true)

        // The grant reflects the current connection and company.
        const disabled = { ...conn, enabled: false }
        const suspended = { ...c, subscription_active: false }
        yield* store.saveConnection(disabled)
        yield* store.saveCompany(suspended)
        expect(Option.getOrThrow(yield* store.findKey(key.id))).toEqual({
          key,
          secretHash: "hash-of-secret",
          connection: disabled,
          company: suspended,
          domainOwner: Option.none()
        })
      })
    )

    it.effect("findKey with a domain also tells which company owns that domain, in the same lookup", () =>
      Effect.gen(function* () {
        const store = yield* Accounts
        const c = company()
        const other = company()
        const conn = connection(c)
        const key = apiKey(conn)
        yield* store.saveCompany(c)
        yield* store.saveCompany(other)
        yield* store.saveConnection(conn)
        yield* store.insertKey(key, "hash-of-secret")
        const ownerFor = (domain: string) =>
          store.findKey(key.id, domain).pipe(Effect.map((grant) => Option.getOrThrow(grant).domainOwner))
        expect(yield* ownerFor(c.domains[1]!)).toEqual(Option.some(c.id))
        expect(yield* ownerFor(other.domains[0]!)).toEqual(Option.some(other.id))
        expect(Option.isNone(yield* ownerFor(`nobody-${uuid()}.example`))).toBe(true)
        const grant = Option.getOrThrow(yield* store.findKey(key.id, other.domains[0]))
        expect(grant.key).toEqual(key)
        expect(grant.company).toEqual(c)
        // An unknown key is not found whatever the domain.
        expect(Option.isNone(yield* store.findKey(generate().keyId, c.domains[0]))).toBe(true)
        // A domain moved to another company answers with its new owner on the next lookup.
        yield* store.saveCompany({ ...other, domains: [] })
        yield* store.saveCompany({ ...c, domains: [...c.domains, other.domains[0]!] })
        expect(yield* ownerFor(other.domains[0]!)).toEqual(Option.some(c.id))
      })
    )

    it.effect("revokeKey sets revoked_at once and tells whether the key exists", () =>
      Effect.gen(function* () {
        const store = yield* Accounts
        const c = company()
        const conn = connection(c)
        const [first, second] = [apiKey(conn, 1), apiKey(conn, 2)]
        yield* store.saveCompany(c)
        yield* store.saveConnection(conn)
        yield* store.insertKey(first, "h1")
        yield* store.insertKey(second, "h2")
        expect(yield* store.revokeKey(first.id, at(10))).toBe(true)
        expect(yield* store.revokeKey(first.id, at(20))).toBe(true)
        expect(yield* store.revokeKey(generate().keyId, at(10))).toBe(false)
        const revoked = { ...first, revoked_at: at(10) }
        expect(Option.getOrThrow(yield* store.findKey(first.id)).key).toEqual(revoked)
        expect(yield* store.listKeys(c.id)).toEqual([revoked, second])
        expect(yield* store.listKeys(uuid() as CompanyId)).toEqual([])
      })
    )

    it.effect("lists connections and keys of their company only", () =>
      Effect.gen(function* () {
        const store = yield* Accounts
        const [a, b] = [company(), company()]
        yield* store.saveCompany(a)
        yield* store.saveCompany(b)
        const [a1, a2, b1] = [connection(a, 1), connection(a, 2), connection(b, 3)]
        yield* Effect.forEach([a1, a2, b1], store.saveConnection)
        const [k1, k2] = [apiKey(a2, 1), apiKey(b1, 2)]
        yield* store.insertKey(k1, "h")
        yield* store.insertKey(k2, "h")
        expect(yield* store.listConnections(a.id)).toEqual([a1, a2])
        expect(yield* store.listConnections(b.id)).toEqual([b1])
        expect(yield* store.listKeys(a.id)).toEqual([k1])
        expect(yield* store.listKeys(b.id)).toEqual([k2])
        expect(Option.getOrThrow(yield* store.getConnection(a2.id))).toEqual(a2)
        expect(Option.isNone(yield* store.getConnection(uuid()))).toBe(true)
        expect(Option.isNone(yield* store.getConnection("not a uuid"))).toBe(true)
        expect(yield* store.listConnections(uuid() as CompanyId)).toEqual([])
        const renamed = { ...a1, name: "Renamed", enabled: false }
        yield* store.saveConnection(renamed)
        expect(yield* store.listConnections(a.id)).toEqual([renamed, a2])
      })
    )

    it.effect("keeps locations per company and assignments per connection", () =>
      Effect.gen(function* () {
        const store = yield* Accounts
        const [a, b] = [company(), company()]
        yield* store.saveCompany(a)
        yield* store.saveCompany(b)
        const [conn1, conn2] = [connection(a, 1), connection(a, 2)]
        yield* store.saveConnection(conn1)
        yield* store.saveConnection(conn2)
        const [l1, l2, foreign] = [location(a, 1), location(a, 2), location(b, 3)]
        yield* Effect.forEach([l1, l2, foreign], store.saveLocation)
        expect(yield* store.listLocations(a.id)).toEqual([l1, l2])
        expect(yield* store.listLocations(b.id)).toEqual([foreign])
        const renamed = { ...l2, name: "Warehouse" }
        yield* store.saveLocation(renamed)
        expect(yield* store.listLocations(a.id)).toEqual([l1, renamed])

        yield* store.assignLocation({ connection_id: conn1.id, location_id: l1.id, writable: true })
        yield* store.assignLocation({ connection_id: conn1.id, location_id: l2.id, writable: true })
        yield* store.assignLocation({ connection_id: conn2.id, location_id: l1.id, writable: false })
        // Assigning again replaces the assignment.
        yield* store.assignLocation({ connection_id: conn1.id, location_id: l2.id, writable: false })
        expect(byLocation(yield* store.assignments(conn1.id))).toEqual(
          byLocation([
            { connection_id: conn1.id, location_id: l1.id, writable: true },
            { connection_id: conn1.id, location_id: l2.id, writable: false }
          ])
        )
        expect(yield* store.assignments(conn2.id)).toEqual([
          { connection_id: conn2.id, location_id: l1.id, writable: false }
        ])
        expect(yield* store.assignments(uuid() as ConnectionId)).toEqual([])

        // Unassigning ends only that connection's access to that location.
        expect(yield* store.unassignLocation(conn1.id, l1.id)).toBe(true)
        expect(yield* store.assignments(conn1.id)).toEqual([
          { connection_id: conn1.id, location_id: l2.id, writable: false }
        ])
        expect(yield* store.assignments(conn2.id)).toEqual([
          { connection_id: conn2.id, location_id: l1.id, writable: false }
        ])
        expect(yield* store.unassignLocation(conn1.id, l1.id)).toBe(false)
        expect(yield* store.unassignLocation(conn2.id, l2.id)).toBe(false)
        expect(yield* store.listLocations(a.id)).toEqual([l1, renamed])
      })
    )
  })

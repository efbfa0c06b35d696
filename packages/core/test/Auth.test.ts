import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { Admin } from "../src/Admin/AccountsAdmin.js"
import { constantTimeEqual, generate, hashSecret, parse } from "../src/Auth/ApiKey.js"
import { authenticate } from "../src/Auth/Authenticate.js"
import { IdsLive } from "../src/Shared/Ids.js"
import { effective } from "../src/Shared/Scope.js"
import { InMemory } from "../src/testing.js"
import { prop } from "./properties.js"

const AdminLayer = Admin.Default.pipe(
  Layer.provideMerge(InMemory.accountsLayer),
  Layer.provideMerge(InMemory.peopleLayer),
  Layer.provideMerge(IdsLive)
)

const companyInput = (slug: string, extra: object = {}) => ({
  name: "Acme",
  currency: "EUR",
  main_language: "en",
  languages: ["de"],
  storage_slug: slug,
  granted_scopes: ["catalog:read", "catalog:write", "prices:read"],
  ...extra
})

const setup = (slug: string, scopes: ReadonlyArray<string> = ["catalog:read", "catalog:write"]) =>
  Effect.gen(function* () {
    const admin = yield* Admin
    const company = yield* admin.createCompany(companyInput(slug))
    const connection = yield* admin.createConnection(company.id, "ERP")
    const { key, token } = yield* admin.createKey({ connection_id: connection.id, scopes, lifetime_days: 30 })
    return { admin, company, connection, key, token }
  })

describe("API keys", () => {
  it("generated keys parse back and differ each time", () => {
    const a = generate()
    const b = generate()
    expect(parse(a.token)).toEqual({ keyId: a.keyId, secret: a.secret })
    expect(a.token).not.toBe(b.token)
    expect(parse("csk_short_x")).toBeUndefined()
    expect(parse(`${a.token}x`)).toBeUndefined()
  })

  prop("constant-time comparison agrees with equality", [fc.string(), fc.string()], ([a, b]) => {
    expect(constantTimeEqual(a, b)).toBe(a === b)
    expect(constantTimeEqual(a, a)).toBe(true)
  })

  prop(
    "effective scopes are the intersection of grants and key scopes",
    [
      fc.subarray(["catalog:read", "catalog:write", "prices:read", "stock:read"] as const),
      fc.subarray(["catalog:read", "catalog:write", "prices:read", "stock:read"] as const)
    ],
    ([granted, keyScopes]) => {
      const result = effective(granted, keyScopes)
      expect([...result].sort()).toEqual(keyScopes.filter((s) => granted.includes(s)).sort())
    }
  )

  it.effect("only a hash of the secret is stored", () =>
    Effect.gen(function* () {
      const { secret } = generate()
      const hash = yield* hashSecret(secret)
      expect(hash).toMatch(/^[0-9a-f]{64}$/)
      expect(hash).not.toContain(secret)
    })
  )
})

layer(AdminLayer)("authentication", (it) => {
  it.effect("a valid key yields the principal with effective scopes", () =>
    Effect.gen(function* () {
      const { company, connection, key, token } = yield* setup("acme-1")
      const principal = yield* authenticate({ authorization: `Bearer ${token}`, host: undefined })
      expect(principal.company.id).toBe(company.id)
      expect(principal.connectionId).toBe(connection.id)
      expect(principal.keyId).toBe(key.id)
      expect([...principal.scopes].sort()).toEqual(["catalog:read", "catalog:write"])
      const listed = yield* (yield* Admin).listKeys(company.id)
      expect(JSON.stringify(listed)).not.toContain(token.split("_").slice(2).join("_"))
    })
  )

  it.effect("missing, malformed, unknown and wrong-secret keys are refused", () =>
    Effect.gen(function* () {
      const { token } = yield* setup("acme-2")
      const reason = (authorization: string | undefined) =>
        Effect.flip(authenticate({ authorization, host: undefined })).pipe(
          Effect.map((e) => (e as { reason?: string }).reason)
        )
      expect(yield* reason(undefined)).toBe("missing_credentials")
      expect(yield* reason(`Basic ${token}`)).toBe("invalid_credentials")
      expect(yield* reason("Bearer nonsense")).toBe("invalid_credentials")
      expect(yield* reason(`Bearer ${generate().token}`)).toBe("invalid_credentials")
      const wrongSecret = `${token.slice(0, -3)}${token.endsWith("AAA") ? "BBB" : "AAA"}`
      expect(yield* reason(`Bearer ${wrongSecret}`)).toBe("invalid_credentials")
    })
  )

  it.effect("revoked and expired keys, disabled connections, companies and subscriptions stop access", () =>
    Effect.gen(function* () {
      const reason = (token: string) =>
        Effect.flip(authenticate({ authorization: `Bearer ${token}`, host: undefined })).pipe(
          Effect.map((e) => (e as { reason?: string }).reason)
        )
      const a = yield* setup("acme-3")
      yield* a.admin.revokeKey(a.key.id)
      expect(yield* reason(a.token)).toBe("key_revoked")
      const b = yield* setup("acme-4")
      yield* b.admin.setConnectionEnabled(b.connection.id, false)
      expect(yield* reason(b.token)).toBe("connection_disabled")
      const c = yield* setup("acme-5")
      yield* c.admin.updateCompany(c.company.id, { enabled: false })
      expect(yield* reason(c.token)).toBe("company_disabled")
      const d = yield* setup("acme-6")
      yield* d.admin.updateCompany(d.company.id, { subscription_active: false })
      expect(yield* reason(d.token)).toBe("subscription_inactive")
      const e = yield* setup("acme-7")
      yield* TestClock.adjust("31 days")
      expect(yield* reason(e.token)).toBe("key_expired")
    })
  )

  it.effect("grants revoked from the company leave existing keys without them", () =>
    Effect.gen(function* () {
      const { admin, company, token } = yield* setup("acme-8")
      yield* admin.revokeScopes(company.id, ["catalog:write"])
      const principal = yield* authenticate({ authorization: `Bearer ${token}`, host: undefined })
      expect([...principal.scopes]).toEqual(["catalog:read"])
      yield* admin.grantScopes(company.id, ["catalog:write", "costs:read"])
      const again = yield* authenticate({ authorization: `Bearer ${token}`, host: undefined })
      // costs:read is granted now, but the key was never created with it: it gets nothing new.
      expect([...again.scopes].sort()).toEqual(["catalog:read", "catalog:write"])
    })
  )

  it.effect("a custom domain admits only its own company's keys", () =>
    Effect.gen(function* () {
      const owner = yield* setup("acme-9")
      yield* owner.admin.updateCompany(owner.company.id, { domains: ["api.acme.example"] })
      const other = yield* setup("other-9")
      const refused = yield* Effect.flip(
        authenticate({ authorization: `Bearer ${other.token}`, host: "api.acme.example" })
      )
      expect(refused).toMatchObject({ _tag: "DomainNotPermitted", code: "domain_not_permitted" })
      const ok = yield* authenticate({ authorization: `Bearer ${owner.token}`, host: "API.acme.example" })
      expect(ok.company.id).toBe(owner.company.id)
    })
  )

  it.effect("admin input is validated: lifetimes 1-365 days, known scopes, unique storage slugs", () =>
    Effect.gen(function* () {
      const { admin, connection } = yield* setup("acme-10")
      for (const lifetime_days of [0, 366, 1.5]) {
        const error = yield* Effect.flip(
          admin.createKey({ connection_id: connection.id, scopes: ["catalog:read"], lifetime_days })
        )
        expect(error).toMatchObject({ _tag: "ValidationFailed", issues: [{ path: "$.lifetime_days" }] })
      }
      const scope = yield* Effect.flip(
        admin.createKey({ connection_id: connection.id, scopes: ["orders:read"], lifetime_days: 5 })
      )
      expect(scope).toMatchObject({ _tag: "ValidationFailed" })
      const ungranted = yield* Effect.flip(
        admin.createKey({ connection_id: connection.id, scopes: ["catalog:read", "costs:read"], lifetime_days: 5 })
      )
      expect(ungranted).toMatchObject({
        _tag: "ValidationFailed",
        issues: [{ path: "$.scopes", message: expect.stringContaining("costs:read") }]
      })
      const taken = yield* Effect.flip(admin.createCompany(companyInput("acme-10")))
      expect(taken).toMatchObject({ _tag: "AccountConflict", field: "storage_slug" })
      const noMain = yield* Effect.flip(
        admin.updateCompany((yield* admin.listCompanies)[0]!.id, { main_language: "fr" })
      )
      expect(noMain).toMatchObject({ _tag: "ValidationFailed" })
    })
  )
})

layer(AdminLayer)("company settings", (it) => {
  it.effect(
    "the currency is an ISO 4217 code; a made-up or lower-case one is refused, and so is an unknown company",
    () =>
      Effect.gen(function* () {
        const admin = yield* Admin
        for (const currency of ["XYZ", "eur", "EURO", "XTS"]) {
          const error = yield* Effect.flip(
            admin.createCompany(companyInput(`cur-${currency.toLowerCase()}`, { currency }))
          )
          expect(error).toMatchObject({
            code: "validation_failed",
            issues: [{ path: "$.currency", message: "must be an ISO 4217 currency code such as EUR or USD" }]
          })
        }
        for (const currency of ["EUR", "USD", "CHF", "JPY", "XOF"]) {
          expect(
            (yield* admin.createCompany(companyInput(`ok-${currency.toLowerCase()}`, { currency }))).currency
          ).toBe(currency)
        }
        const missing = yield* Effect.flip(admin.createConnection("00000000-0000-4000-8000-000000000000", "ERP"))
        expect(missing.message).toBe("no company 00000000-0000-4000-8000-000000000000")
      })
  )

  it.effect("languages are known language codes, on creation and on change; a made-up one is refused", () =>
    Effect.gen(function* () {
      const admin = yield* Admin
      const created = yield* Effect.flip(admin.createCompany(companyInput("lang-xx", { languages: ["de", "xx"] })))
      expect(created).toMatchObject({
        code: "validation_failed",
        issues: [
          { path: "$.languages[1]", message: 'must be a language code such as en, de or pt-BR; "xx" is not one' }
        ]
      })
      const main = yield* Effect.flip(admin.createCompany(companyInput("lang-qq", { main_language: "qq" })))
      expect(main).toMatchObject({ issues: [{ path: "$.main_language" }] })
      const company = yield* admin.createCompany(companyInput("lang-ok", { languages: ["de", "pt-BR", "gsw"] }))
      expect(company.languages).toEqual(["en", "de", "pt-BR", "gsw"])
      const changed = yield* Effect.flip(admin.updateCompany(company.id, { languages: ["zz"] }))
      expect(changed).toMatchObject({ issues: [{ path: "$.languages[0]" }] })
    })
  )
})

import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as fc from "fast-check"
import { bodyParts, missingScopes, modeViolations, requiredWriteScopes } from "../src/Catalog/Access.js"
import { definitions } from "../src/Catalog/Resources.js"
import { all as allScopes, type Scope } from "../src/Shared/Scope.js"
import { as, category, company, get, list, principal, TestLayer, upsert } from "./support.js"

const product = definitions.products

describe("write access rules", () => {
  it.prop("catalog mode never allows price or cost fields; prices mode never allows catalog fields", [
    fc.subarray(["name", "sku", "category_ids", "translations"]),
    fc.subarray(["price", "market_price", "tax_rate"]),
    fc.subarray(["cost"])
  ], ([catalog, prices, costs]) => {
    const body = Object.fromEntries([...catalog, ...prices, ...costs, "external_id"].map((k) => [k, "x"]))
    const parts = bodyParts(product, body)
    expect(modeViolations("catalog", parts).map((i) => i.path).sort()).toEqual([...prices, ...costs].map((k) => `$.${k}`).sort())
    expect(modeViolations("prices", parts).map((i) => i.path).sort()).toEqual(catalog.map((k) => `$.${k}`).sort())
    expect(modeViolations("combined", parts)).toEqual([])
  })

  it.prop("each part of a write needs its own scope", [
    fc.constantFrom("catalog" as const, "prices" as const, "combined" as const),
    fc.boolean(),
    fc.boolean(),
    fc.boolean(),
    fc.boolean(),
    fc.boolean()
  ], ([mode, catalog, prices, costs, coefficient, isCreate]) => {
    const body: Record<string, unknown> = { external_id: "x" }
    if (catalog) body.name = "n"
    if (prices) body.price = "1"
    if (costs) body.cost = "1"
    if (coefficient) body.fields = [{ coefficient: "1" }]
    const required = new Set(requiredWriteScopes(mode, bodyParts(product, body), isCreate))
    expect(required.has("costs:write")).toBe(costs)
    expect(required.has("prices:write")).toBe(mode === "prices" || prices || coefficient)
    const touchesCatalog = catalog || coefficient
    if (mode !== "prices" && (touchesCatalog || isCreate)) expect(required.has("catalog:write")).toBe(true)
    if (mode === "prices") expect(required.has("catalog:write")).toBe(false)
  })

  it.prop("missing scopes are exactly the required ones not held", [fc.subarray([...allScopes]), fc.subarray([...allScopes])], ([required, held]) => {
    const missing = missingScopes(required as ReadonlyArray<Scope>, new Set(held as ReadonlyArray<Scope>))
    expect(missing).toEqual(required.filter((s) => !held.includes(s)))
  })
})

const withScopes = (scopes: ReadonlyArray<Scope>, settings = company()) => principal(settings, scopes)

layer(TestLayer)("modes and scopes through the use case", (it) => {
  it.effect("catalog mode rejects price and cost fields with their paths", () =>
    Effect.gen(function* () {
      const cat = yield* category("c")
      const error = yield* Effect.flip(upsert("products", { external_id: "p", name: "S", category_ids: [cat.id], price: "1", cost: "2" }))
      expect(error).toMatchObject({ code: "field_not_allowed_in_mode" })
      expect((error as { issues: ReadonlyArray<{ path: string }> }).issues.map((i) => i.path)).toEqual(["$.price", "$.cost"])
    }).pipe(as(principal())))

  it.effect("prices mode changes prices of an existing mapped record and preserves the rest", () =>
    Effect.gen(function* () {
      const settings = company()
      const full = principal(settings)
      const cat = yield* category("c").pipe(as(full))
      yield* upsert("products", { external_id: "p", name: "Sofa", category_ids: [cat.id] }).pipe(as(full))
      const pricer = principal(settings, ["prices:write", "prices:read"], full.connectionId)
      const priced = yield* upsert("products", { external_id: "p", mode: "prices", expected_revision: 1, price: "99.9", tax_rate: "20" }).pipe(as(pricer))
      // A key without catalog:read is answered with the price view of the record.
      expect(priced.record).toMatchObject({ revision: 2, price: "99.90", tax_rate: "20.00", tax_model: "inclusive" })
      expect(priced.record).not.toHaveProperty("name")
      expect(yield* get("products", priced.record.id as string).pipe(as(full))).toMatchObject({ name: "Sofa", category_ids: [cat.id], price: "99.90" })
      const bind = yield* Effect.flip(
        upsert("products", { external_id: "other-id", target_id: priced.record.id, mode: "prices", expected_revision: 2, price: "1" }).pipe(as(pricer))
      )
      expect(bind).toMatchObject({ _tag: "RecordNotFound" })
      const notMapped = yield* Effect.flip(upsert("products", { external_id: "other", mode: "prices", price: "1" }).pipe(as(pricer)))
      expect(notMapped).toMatchObject({ _tag: "RecordNotFound" })
      const catalogField = yield* Effect.flip(upsert("products", { external_id: "p", mode: "prices", expected_revision: 2, name: "X" }).pipe(as(pricer)))
      expect(catalogField).toMatchObject({ code: "field_not_allowed_in_mode", issues: [{ path: "$.name" }] })
      const cost = yield* Effect.flip(upsert("products", { external_id: "p", mode: "prices", expected_revision: 2, cost: "5" }).pipe(as(pricer)))
      expect(cost).toMatchObject({ _tag: "ScopeDenied", required: ["costs:write"] })
    }))

  it.effect("combined mode needs catalog:write to create and prices:write for prices", () =>
    Effect.gen(function* () {
      const settings = company()
      const full = principal(settings)
      const cat = yield* category("c").pipe(as(full))
      const priceOnly = principal(settings, ["prices:write"], full.connectionId)
      const create = yield* Effect.flip(upsert("products", { external_id: "p", mode: "combined", price: "1" }).pipe(as(priceOnly)))
      expect(create).toMatchObject({ _tag: "ScopeDenied", required: ["catalog:write"] })
      const catalogOnly = principal(settings, ["catalog:write", "catalog:read"], full.connectionId)
      const priced = yield* Effect.flip(upsert("products", { external_id: "p", mode: "combined", name: "S", category_ids: [cat.id], price: "1" }).pipe(as(catalogOnly)))
      expect(priced).toMatchObject({ _tag: "ScopeDenied", required: ["prices:write"] })
      const coefficient = yield* Effect.flip(
        upsert("products", { external_id: "p", name: "S", category_ids: [cat.id], fields: [{ external_id: "f", name: "F", type_id: cat.id, coefficient: "2" }] }).pipe(as(catalogOnly))
      )
      expect(coefficient).toMatchObject({ _tag: "ScopeDenied", required: ["prices:write"] })
    }))

  it.effect("reads hide prices without prices:read, costs without costs:read, and coefficients with prices", () =>
    Effect.gen(function* () {
      const settings = company()
      const full = principal(settings)
      const cat = yield* category("c").pipe(as(full))
      const type = (yield* upsert("customization-types", { external_id: "t", name: "T" }).pipe(as(full))).record
      const created = yield* upsert("products", {
        external_id: "p",
        mode: "combined",
        name: "Sofa",
        category_ids: [cat.id],
        price: "10",
        cost: "4",
        fields: [{ external_id: "f", name: "F", type_id: type.id, coefficient: "0.5" }]
      }).pipe(as(full))
      const id = created.record.id as string
      const reader = principal(settings, ["catalog:read"], full.connectionId)
      const plain = yield* get("products", id).pipe(as(reader))
      for (const key of ["price", "market_price", "tax_rate", "tax_model", "cost"]) expect(plain).not.toHaveProperty(key)
      expect((plain.fields as ReadonlyArray<object>)[0]).not.toHaveProperty("coefficient")
      const pricesReader = principal(settings, ["catalog:read", "prices:read"], full.connectionId)
      const withPrices = yield* get("products", id).pipe(as(pricesReader))
      expect(withPrices).toMatchObject({ price: "10.00", tax_model: "inclusive" })
      expect(withPrices).not.toHaveProperty("cost")
      expect((yield* get("products", id).pipe(as(full)))).toMatchObject({ cost: "4.00" })
      const priceList = yield* list("products", { mode: "prices" }).pipe(as(principal(settings, ["prices:read"], full.connectionId)))
      expect(priceList.records).toEqual([
        { id, external_id: "p", revision: 1, price: "10.00", market_price: null, tax_rate: null, tax_model: "inclusive", updated_at: created.record.updated_at }
      ])
      const denied = yield* Effect.flip(list("products").pipe(as(principal(settings, ["prices:read"]))))
      expect(denied).toMatchObject({ _tag: "ScopeDenied", required: ["catalog:read"] })
      const deniedPrices = yield* Effect.flip(list("products", { mode: "prices" }).pipe(as(reader)))
      expect(deniedPrices).toMatchObject({ _tag: "ScopeDenied", required: ["prices:read"] })
    }))

  it.effect("a key without catalog:write cannot write the catalog", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(upsert("categories", { external_id: "c", name: "C" }))
      expect(error).toMatchObject({ _tag: "ScopeDenied", code: "insufficient_scope", required: ["catalog:write"] })
    }).pipe(as(withScopes(["catalog:read"]))))

  it.effect("decoding failures list every failing path", () =>
    Effect.gen(function* () {
      const result = yield* Effect.either(upsert("products", { external_id: "", name: 5, details: { colour: "red" } }))
      expect(Either.isLeft(result)).toBe(true)
      const error = Either.getLeft(result)
      expect(error).toMatchObject({ _tag: "Some", value: { _tag: "ValidationFailed", code: "validation_failed" } })
    }).pipe(as(principal())))
})

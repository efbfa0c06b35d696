import { describe, expect, layer } from "@effect/vitest"
import { Effect, Result } from "effect"
import * as fc from "fast-check"
import {
  bodyParts,
  missingScopes,
  modeViolations,
  pricesModeBody,
  requiredWriteScopes
} from "../src/internal/Catalog/Access.js"
import { definitions } from "../src/Resources/Registry.js"
import { all as allScopes, type Scope } from "../src/Shared/Scope.js"
import { as, category, company, get, list, principal, TestLayer, upsert } from "./support.js"
import { prop } from "./properties.js"

const product = definitions.products

describe("write access rules", () => {
  prop(
    "catalog mode refuses price and cost fields; prices mode refuses nothing and preserves (ignores) every catalog field",
    [
      fc.subarray(["name", "sku", "category_ids", "translations"]),
      fc.subarray(["price", "market_price", "tax_rate"]),
      fc.subarray(["cost"])
    ],
    ([catalog, prices, costs]) => {
      const body = Object.fromEntries([...catalog, ...prices, ...costs, "external_id", "mode"].map((k) => [k, "x"]))
      const parts = bodyParts(product, body)
      expect(
        modeViolations("catalog", parts)
          .map((i) => i.path)
          .sort()
      ).toEqual([...prices, ...costs].map((k) => `$.${k}`).sort())
      expect(modeViolations("prices", parts)).toEqual([])
      expect(modeViolations("combined", parts)).toEqual([])
      const applied = pricesModeBody(product, body)
      expect([...applied.ignored].sort()).toEqual(catalog.map((k) => `$.${k}`).sort())
      expect(Object.keys(applied.body).sort()).toEqual([...prices, ...costs, "external_id", "mode"].sort())
    }
  )

  prop(
    "prices mode keeps of selection fields only their identity and coefficient, in place, and names the rest",
    [
      fc.array(
        fc.record(
          {
            id: fc.option(fc.uuid(), { nil: undefined }),
            external_id: fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
            name: fc.option(fc.string(), { nil: undefined }),
            group_ids: fc.option(fc.array(fc.uuid(), { maxLength: 2 }), { nil: undefined }),
            coefficient: fc.option(fc.constantFrom("0.5", "1", "2.25"), { nil: undefined })
          },
          { requiredKeys: [] }
        ),
        { minLength: 1, maxLength: 5 }
      )
    ],
    ([fields]) => {
      const applied = pricesModeBody(product, { external_id: "p", mode: "prices", fields })
      const withCoefficient = fields.some((f) => f.coefficient !== undefined)
      if (!withCoefficient) {
        expect(applied.body).not.toHaveProperty("fields")
        expect(applied.ignored).toEqual(["$.fields"])
        return
      }
      const kept = applied.body.fields as ReadonlyArray<Record<string, unknown>>
      expect(kept).toHaveLength(fields.length)
      kept.forEach((entry, i) => {
        expect(Object.keys(entry).every((k) => ["id", "external_id", "coefficient"].includes(k))).toBe(true)
        expect(entry.coefficient).toBe(fields[i]!.coefficient)
      })
      const expectedIgnored = fields.flatMap((f, i) =>
        ["name", "group_ids"].filter((k) => k in f).map((k) => `$.fields[${i}].${k}`)
      )
      expect([...applied.ignored].sort()).toEqual(expectedIgnored.sort())
    }
  )

  prop(
    "what a body touches is computed without throwing on any JSON (a body may fail its schema later)",
    [fc.jsonValue()],
    ([fields]) => {
      expect(() => bodyParts(product, { external_id: "p", fields })).not.toThrow()
      expect(() => pricesModeBody(product, { external_id: "p", fields })).not.toThrow()
    }
  )

  prop(
    "each part of a write needs its own scope",
    [
      fc.constantFrom("catalog" as const, "prices" as const, "combined" as const),
      fc.boolean(),
      fc.boolean(),
      fc.boolean(),
      fc.boolean(),
      fc.boolean()
    ],
    ([mode, catalog, prices, costs, coefficient, isCreate]) => {
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
    }
  )

  prop(
    "missing scopes are exactly the required ones not held",
    [fc.subarray([...allScopes]), fc.subarray([...allScopes])],
    ([required, held]) => {
      const missing = missingScopes(required as ReadonlyArray<Scope>, new Set(held as ReadonlyArray<Scope>))
      expect(missing).toEqual(required.filter((s) => !held.includes(s)))
    }
  )
})

const withScopes = (scopes: ReadonlyArray<Scope>, settings = company()) => principal(settings, scopes)

layer(TestLayer)("modes and scopes through the use case", (it) => {
  it.effect("catalog mode rejects price and cost fields with their paths", () =>
    Effect.gen(function* () {
      const cat = yield* category("c")
      const error = yield* Effect.flip(
        upsert("products", { external_id: "p", name: "S", category_ids: [cat.id], price: "1", cost: "2" })
      )
      expect(error).toMatchObject({ code: "field_not_allowed_in_mode" })
      expect((error as { issues: ReadonlyArray<{ path: string }> }).issues.map((i) => i.path)).toEqual([
        "$.price",
        "$.cost"
      ])
    }).pipe(as(principal()))
  )

  it.effect("prices mode changes prices of an existing mapped record and preserves the rest", () =>
    Effect.gen(function* () {
      const settings = company()
      const full = principal(settings)
      const cat = yield* category("c").pipe(as(full))
      yield* upsert("products", { external_id: "p", name: "Sofa", category_ids: [cat.id] }).pipe(as(full))
      const pricer = principal(settings, ["prices:write", "prices:read"], full.connectionId)
      const priced = yield* upsert("products", {
        external_id: "p",
        mode: "prices",
        expected_revision: 1,
        price: "99.9",
        tax_rate: "20"
      }).pipe(as(pricer))
      // A key without catalog:read is answered with the price view of the record.
      expect(priced.record).toMatchObject({ revision: 2, price: "99.90", tax_rate: "20.00", tax_model: "inclusive" })
      expect(priced.record).not.toHaveProperty("name")
      expect(yield* get("products", priced.record.id as string).pipe(as(full))).toMatchObject({
        name: "Sofa",
        category_ids: [cat.id],
        price: "99.90"
      })
      const bind = yield* Effect.flip(
        upsert("products", {
          external_id: "other-id",
          target_id: priced.record.id,
          mode: "prices",
          expected_revision: 2,
          price: "1"
        }).pipe(as(pricer))
      )
      expect(bind).toMatchObject({ _tag: "RecordNotFound" })
      const notMapped = yield* Effect.flip(
        upsert("products", { external_id: "other", mode: "prices", price: "1" }).pipe(as(pricer))
      )
      expect(notMapped).toMatchObject({ _tag: "RecordNotFound" })
      // Catalog fields in prices mode are preserved, not applied, and named (spec 2.3).
      const ignored = yield* upsert("products", {
        external_id: "p",
        mode: "prices",
        expected_revision: 2,
        name: "X",
        category_ids: [{ external_id: "nowhere" }],
        price: "80"
      }).pipe(as(pricer))
      expect(ignored).toMatchObject({
        outcome: "updated",
        ignored_fields: ["$.name", "$.category_ids"],
        record: { revision: 3, price: "80.00" }
      })
      expect(yield* get("products", priced.record.id as string).pipe(as(full))).toMatchObject({
        name: "Sofa",
        category_ids: [cat.id],
        price: "80.00"
      })
      const onlyCatalog = yield* upsert("products", {
        external_id: "p",
        mode: "prices",
        expected_revision: 3,
        name: "Y"
      }).pipe(as(pricer))
      expect(onlyCatalog).toMatchObject({ outcome: "unchanged", ignored_fields: ["$.name"], record: { revision: 3 } })
      const cost = yield* Effect.flip(
        upsert("products", { external_id: "p", mode: "prices", expected_revision: 3, cost: "5" }).pipe(as(pricer))
      )
      expect(cost).toMatchObject({ _tag: "ScopeDenied", required: ["costs:write"] })
    })
  )

  it.effect("combined mode needs catalog:write to create and prices:write for prices", () =>
    Effect.gen(function* () {
      const settings = company()
      const full = principal(settings)
      const cat = yield* category("c").pipe(as(full))
      const priceOnly = principal(settings, ["prices:write"], full.connectionId)
      const create = yield* Effect.flip(
        upsert("products", { external_id: "p", mode: "combined", price: "1" }).pipe(as(priceOnly))
      )
      expect(create).toMatchObject({ _tag: "ScopeDenied", required: ["catalog:write"] })
      const catalogOnly = principal(settings, ["catalog:write", "catalog:read"], full.connectionId)
      const priced = yield* Effect.flip(
        upsert("products", { external_id: "p", mode: "combined", name: "S", category_ids: [cat.id], price: "1" }).pipe(
          as(catalogOnly)
        )
      )
      expect(priced).toMatchObject({ _tag: "ScopeDenied", required: ["prices:write"] })
      const coefficient = yield* Effect.flip(
        upsert("products", {
          external_id: "p",
          name: "S",
          category_ids: [cat.id],
          fields: [{ external_id: "f", name: "F", type_id: cat.id, coefficient: "2" }]
        }).pipe(as(catalogOnly))
      )
      expect(coefficient).toMatchObject({ _tag: "ScopeDenied", required: ["prices:write"] })
    })
  )

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
      for (const key of ["price", "market_price", "tax_rate", "tax_model", "cost"])
        expect(plain).not.toHaveProperty(key)
      expect((plain.fields as ReadonlyArray<object>)[0]).not.toHaveProperty("coefficient")
      const pricesReader = principal(settings, ["catalog:read", "prices:read"], full.connectionId)
      const withPrices = yield* get("products", id).pipe(as(pricesReader))
      expect(withPrices).toMatchObject({ price: "10.00", tax_model: "inclusive" })
      expect(withPrices).not.toHaveProperty("cost")
      expect(yield* get("products", id).pipe(as(full))).toMatchObject({ cost: "4.00" })
      const priceList = yield* list("products", { mode: "prices" }).pipe(
        as(principal(settings, ["prices:read"], full.connectionId))
      )
      const fieldId = (created.record.fields as ReadonlyArray<{ id: string }>)[0]!.id
      expect(priceList.records).toEqual([
        {
          id,
          external_id: "p",
          revision: 1,
          fields: [{ id: fieldId, external_id: "f", coefficient: "0.5" }],
          price: "10.00",
          market_price: null,
          tax_rate: null,
          tax_model: "inclusive",
          updated_at: created.record.updated_at
        }
      ])
      const denied = yield* Effect.flip(list("products").pipe(as(principal(settings, ["prices:read"]))))
      expect(denied).toMatchObject({ _tag: "ScopeDenied", required: ["catalog:read"] })
      const deniedPrices = yield* Effect.flip(list("products", { mode: "prices" }).pipe(as(reader)))
      expect(deniedPrices).toMatchObject({ _tag: "ScopeDenied", required: ["prices:read"] })
    })
  )

  it.effect(
    "coefficients are prices (spec 5.9): a prices-only key sets them in prices mode by field id or external_id and reads them in the price view",
    () =>
      Effect.gen(function* () {
        const settings = company()
        const full = principal(settings)
        const cat = yield* category("c").pipe(as(full))
        const type = (yield* upsert("customization-types", { external_id: "t", name: "T" }).pipe(as(full))).record
        const created = yield* upsert("products", {
          external_id: "p",
          name: "Sofa",
          category_ids: [cat.id],
          fields: [
            { external_id: "seat", name: "Seat", type_id: type.id },
            { external_id: "arms", name: "Arms", type_id: type.id }
          ]
        }).pipe(as(full))
        const [seat, arms] = created.record.fields as ReadonlyArray<{ id: string; coefficient: string }>
        expect([seat!.coefficient, arms!.coefficient]).toEqual(["1", "1"])
        const pricer = principal(settings, ["prices:write", "prices:read"], full.connectionId)
        const priced = yield* upsert("products", {
          external_id: "p",
          mode: "prices",
          expected_revision: 1,
          fields: [
            { external_id: "seat", coefficient: "0.3" },
            { id: arms!.id, name: "Renamed", coefficient: "2" }
          ]
        }).pipe(as(pricer))
        expect(priced).toMatchObject({
          outcome: "updated",
          ignored_fields: ["$.fields[1].name"],
          record: {
            revision: 2,
            fields: [
              { id: seat!.id, external_id: "seat", coefficient: "0.3" },
              { id: arms!.id, external_id: "arms", coefficient: "2" }
            ]
          }
        })
        const stored = yield* get("products", created.record.id as string).pipe(as(full))
        expect(stored.fields).toMatchObject([
          { name: "Seat", coefficient: "0.3" },
          { name: "Arms", coefficient: "2" }
        ])
        const unknown = yield* Effect.flip(
          upsert("products", {
            external_id: "p",
            mode: "prices",
            expected_revision: 2,
            fields: [{ external_id: "legs", coefficient: "1.5" }]
          }).pipe(as(pricer))
        )
        expect(unknown).toMatchObject({ code: "invalid_selection_field", issues: [{ path: "$.fields[0]" }] })
        const catalogOnly = principal(settings, ["catalog:read", "catalog:write"], full.connectionId)
        expect((yield* get("products", created.record.id as string).pipe(as(catalogOnly))).fields).toEqual([
          { id: seat!.id, external_id: "seat", name: "Seat", translations: {}, type_id: type.id, group_ids: [] },
          { id: arms!.id, external_id: "arms", name: "Arms", translations: {}, type_id: type.id, group_ids: [] }
        ])
        const refused = yield* Effect.flip(
          upsert("products", {
            external_id: "p",
            mode: "prices",
            expected_revision: 2,
            fields: [{ external_id: "seat", coefficient: "0.5" }]
          }).pipe(as(catalogOnly))
        )
        expect(refused).toMatchObject({ _tag: "ScopeDenied", required: ["prices:write"] })
      })
  )

  it.effect("a selection field links groups of its own customization type only (spec 2.5)", () =>
    Effect.gen(function* () {
      const cat = yield* category("c")
      const fabric = (yield* upsert("customization-types", { external_id: "fabric", name: "Fabric" })).record
      const legs = (yield* upsert("customization-types", { external_id: "legs", name: "Legs" })).record
      const book = (yield* upsert("customization-groups", { external_id: "book", name: "Book", type_id: fabric.id }))
        .record
      const wood = (yield* upsert("customization-groups", { external_id: "wood", name: "Wood", type_id: legs.id }))
        .record
      const refused = yield* Effect.flip(
        upsert("products", {
          external_id: "p",
          name: "Sofa",
          category_ids: [cat.id],
          fields: [
            {
              external_id: "main",
              name: "Main fabric",
              type_id: fabric.id,
              group_ids: [book.id, { external_id: "wood" }]
            }
          ]
        })
      )
      expect(refused).toMatchObject({ code: "invalid_selection_field", issues: [{ path: "$.fields[0].group_ids[1]" }] })
      expect((refused as { message: string }).message).toContain(wood.id as string)
      const accepted = yield* upsert("products", {
        external_id: "p",
        name: "Sofa",
        category_ids: [cat.id],
        fields: [{ external_id: "main", name: "Main fabric", type_id: fabric.id, group_ids: [book.id] }]
      })
      expect(accepted.outcome).toBe("created")
    }).pipe(as(principal()))
  )

  it.effect("a key without catalog:write cannot write the catalog", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(upsert("categories", { external_id: "c", name: "C" }))
      expect(error).toMatchObject({ _tag: "ScopeDenied", code: "insufficient_scope", required: ["catalog:write"] })
    }).pipe(as(withScopes(["catalog:read"])))
  )

  it.effect("decoding failures list every failing path", () =>
    Effect.gen(function* () {
      const result = yield* Effect.result(upsert("products", { external_id: "", name: 5, details: { colour: "red" } }))
      expect(Result.isFailure(result)).toBe(true)
      const error = Result.getFailure(result)
      expect(error).toMatchObject({ _tag: "Some", value: { _tag: "ValidationFailed", code: "validation_failed" } })
    }).pipe(as(principal()))
  )
})

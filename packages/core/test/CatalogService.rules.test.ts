import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { cycleViolations, maxDepth } from "../src/Category/Category.js"
import { saleValidation } from "../src/Product/Product.js"
import type { RecordId } from "../src/Shared/Ids.js"
import { archive, as, category, company, get, principal, TestLayer, upsert } from "./support.js"
import { prop } from "./properties.js"

/** A random forest: node i's parent is a node with a smaller index, or none. */
const forest = fc.integer({ min: 2, max: 25 }).chain((n) =>
  fc.tuple(
    fc.constant(n),
    fc
      .array(fc.option(fc.nat(), { nil: undefined }), { minLength: n, maxLength: n })
      .map((raw) => raw.map((pick, i) => (i === 0 || pick === undefined ? null : pick % i)))
  )
)

const ancestorsOf = (parents: ReadonlyArray<number | null>, node: number): ReadonlyArray<number> => {
  const chain: Array<number> = []
  for (let p = parents[node] ?? null; p !== null; p = parents[p] ?? null) chain.push(p)
  return chain
}

describe("category cycles", () => {
  prop(
    "a new parent is refused exactly when it is the category itself or one of its descendants",
    [forest.chain(([n, parents]) => fc.tuple(fc.constant(parents), fc.nat(n - 1), fc.nat(n - 1)))],
    ([[parents, node, newParent]]) => {
      const id = (i: number) => `id-${i}` as RecordId
      const isDescendantOrSelf = newParent === node || ancestorsOf(parents, newParent).includes(node)
      const violations = cycleViolations(id(node), id(newParent), ancestorsOf(parents, newParent).map(id))
      expect(violations.length > 0).toBe(isDescendantOrSelf)
    }
  )

  it("chains deeper than the limit are refused", () => {
    const chain = Array.from({ length: maxDepth }, (_, i) => `a${i}` as RecordId)
    expect(cycleViolations("x" as RecordId, "p" as RecordId, chain)).toHaveLength(1)
    expect(cycleViolations("x" as RecordId, "p" as RecordId, chain.slice(1))).toHaveLength(0)
  })
})

describe("sale validation", () => {
  const sellable = { category_ids: ["c"], price: "1.00", kind: "single", components: [], fields: [] }
  prop(
    "each missing requirement is reported at its path",
    [
      fc.record({ noCategory: fc.boolean(), noPrice: fc.boolean(), emptyBundle: fc.boolean(), groupless: fc.boolean() })
    ],
    ([broken]) => {
      const document = {
        ...sellable,
        category_ids: broken.noCategory ? [] : ["c"],
        price: broken.noPrice ? null : "1.00",
        kind: broken.emptyBundle ? "bundle" : "single",
        fields: broken.groupless ? [{ id: "f", group_ids: [] }] : []
      }
      const paths = saleValidation(document).map((v) => v.issue.path)
      expect(paths).toEqual([
        ...(broken.noCategory ? ["$.category_ids"] : []),
        ...(broken.noPrice ? ["$.price"] : []),
        ...(broken.emptyBundle ? ["$.components"] : []),
        ...(broken.groupless ? ["$.fields[0].group_ids"] : [])
      ])
    }
  )
})

layer(TestLayer)("catalog rules through the use case", (it) => {
  it.effect("refuses a category cycle through a chain and a self parent", () =>
    Effect.gen(function* () {
      const a = yield* category("a")
      const b = yield* category("b", { parent_id: a.id })
      yield* category("c", { parent_id: { external_id: "b" } })
      const cycle = yield* Effect.flip(
        upsert("categories", { external_id: "a", expected_revision: 1, parent_id: { external_id: "c" } })
      )
      expect(cycle).toMatchObject({ code: "category_cycle", issues: [{ path: "$.parent_id" }] })
      const self = yield* Effect.flip(upsert("categories", { external_id: "b", expected_revision: 1, parent_id: b.id }))
      expect(self).toMatchObject({ code: "category_cycle" })
      const fine = yield* upsert("categories", { external_id: "a", expected_revision: 1, parent_id: null })
      expect(fine.outcome).toBe("unchanged")
    }).pipe(as(principal()))
  )

  it.effect("activation runs sale validation; an active product stays valid", () =>
    Effect.gen(function* () {
      const cat = yield* category("c")
      const refused = yield* Effect.flip(
        upsert("products", { external_id: "p", name: "S", category_ids: [cat.id], active: true })
      )
      expect(refused).toMatchObject({ code: "sale_validation_failed", issues: [{ path: "$.price" }] })
      const active = yield* upsert("products", {
        external_id: "p",
        mode: "combined",
        name: "S",
        category_ids: [cat.id],
        active: true,
        price: "100"
      })
      expect(active.record).toMatchObject({ state: "active", active: true })
      const cleared = yield* Effect.flip(
        upsert("products", {
          external_id: "p",
          mode: "combined",
          expected_revision: 1,
          fields: [
            {
              external_id: "f",
              name: "F",
              type_id: (yield* upsert("customization-types", { external_id: "t", name: "T" })).record.id
            }
          ]
        })
      )
      expect(cleared).toMatchObject({ code: "sale_validation_failed", issues: [{ path: "$.fields[0].group_ids" }] })
    }).pipe(as(principal()))
  )

  it.effect("a bundle groups existing single products; a single product has no components", () =>
    Effect.gen(function* () {
      const cat = yield* category("c")
      const chair = (yield* upsert("products", { external_id: "chair", name: "Chair", category_ids: [cat.id] })).record
      const set = yield* upsert("products", {
        external_id: "set",
        name: "Set",
        kind: "bundle",
        category_ids: [cat.id],
        components: [{ product_id: { external_id: "chair" }, quantity: 4 }]
      })
      expect(set.record.components).toEqual([{ product_id: chair.id, quantity: 4 }])
      const nested = yield* Effect.flip(
        upsert("products", {
          external_id: "set2",
          name: "Set 2",
          kind: "bundle",
          category_ids: [cat.id],
          components: [{ product_id: set.record.id, quantity: 1 }]
        })
      )
      expect(nested).toMatchObject({ code: "invalid_bundle", issues: [{ path: "$.components[0].product_id" }] })
      const self = yield* Effect.flip(
        upsert("products", {
          external_id: "set",
          expected_revision: 1,
          components: [{ product_id: set.record.id, quantity: 1 }]
        })
      )
      expect(self).toMatchObject({ code: "invalid_bundle" })
      const single = yield* Effect.flip(
        upsert("products", {
          external_id: "x",
          name: "X",
          category_ids: [cat.id],
          components: [{ product_id: chair.id, quantity: 1 }]
        })
      )
      expect(single).toMatchObject({ code: "invalid_bundle", issues: [{ path: "$.components" }] })
    }).pipe(as(principal()))
  )

  it.effect("tax_rate must be one of the company's configured rates, compared by value", () =>
    Effect.gen(function* () {
      const cat = yield* category("c")
      const bad = yield* Effect.flip(
        upsert("products", { external_id: "p", mode: "combined", name: "S", category_ids: [cat.id], tax_rate: "7" })
      )
      expect(bad).toMatchObject({ code: "tax_rate_not_configured", issues: [{ path: "$.tax_rate" }] })
      const ok = yield* upsert("products", {
        external_id: "p",
        mode: "combined",
        name: "S",
        category_ids: [cat.id],
        tax_rate: "20"
      })
      expect(ok.record.tax_rate).toBe("20.00")
    }).pipe(as(principal(company({ tax_rates: ["20.00"] }))))
  )

  it.effect("pricing rules: a value for percent/fixed, and only at the level the type prices", () =>
    Effect.gen(function* () {
      yield* upsert("customization-types", { external_id: "fabric", name: "Fabric", pricing_scope: "group" })
      const noValue = yield* Effect.flip(
        upsert("customization-groups", {
          external_id: "g",
          mode: "combined",
          name: "G",
          type_id: { external_id: "fabric" },
          pricing_mode: "percent"
        })
      )
      expect(noValue).toMatchObject({ code: "invalid_pricing", issues: [{ path: "$.pricing_value" }] })
      const group = yield* upsert("customization-groups", {
        external_id: "g",
        mode: "combined",
        name: "G",
        type_id: { external_id: "fabric" },
        pricing_mode: "percent",
        pricing_value: "30"
      })
      expect(group.record).toMatchObject({ pricing_mode: "percent", pricing_value: "30.00" })
      const optionPriced = yield* Effect.flip(
        upsert("customization-options", {
          external_id: "o",
          mode: "combined",
          name: "Blue",
          group_id: { external_id: "g" },
          pricing_mode: "fixed",
          pricing_value: "5"
        })
      )
      expect(optionPriced).toMatchObject({ code: "invalid_pricing", issues: [{ path: "$.pricing_mode" }] })
      const option = yield* upsert("customization-options", {
        external_id: "o",
        name: "Blue",
        group_id: { external_id: "g" },
        code: "B-1"
      })
      expect(option.record).toMatchObject({ pricing_mode: "none", pricing_value: null, code: "B-1", active: true })
      const none = yield* upsert("customization-groups", {
        external_id: "g",
        mode: "prices",
        expected_revision: 1,
        pricing_mode: "none"
      })
      expect(none.record).toMatchObject({ pricing_mode: "none", pricing_value: null })
    }).pipe(as(principal()))
  )

  it.effect("a product in a live bundle cannot be archived or become a bundle; once out of the bundle it can", () =>
    Effect.gen(function* () {
      const cat = yield* category("c")
      const single = (id: string) => upsert("products", { external_id: id, name: id, category_ids: [cat.id] })
      const chair = (yield* single("chair")).record
      const table = (yield* single("table")).record
      const bundle = yield* upsert("products", {
        external_id: "set",
        name: "Set",
        kind: "bundle",
        category_ids: [cat.id],
        components: [
          { product_id: chair.id, quantity: 4 },
          { product_id: table.id, quantity: 1 }
        ]
      })
      const inUse = yield* Effect.flip(archive(chair.id as string, 1))
      expect(inUse).toMatchObject({ code: "record_in_use", bundle_ids: [bundle.record.id] })
      const toBundle = yield* Effect.flip(
        upsert("products", { external_id: "chair", expected_revision: 1, kind: "bundle" })
      )
      expect(toBundle).toMatchObject({ code: "invalid_bundle", issues: [{ path: "$.kind" }] })
      // Nothing was written by the refusals.
      expect(yield* get("products", chair.id as string)).toMatchObject({
        revision: 1,
        state: "inactive",
        kind: "single"
      })
      yield* upsert("products", {
        external_id: "set",
        expected_revision: 1,
        components: [{ product_id: table.id, quantity: 1 }]
      })
      expect(yield* archive(chair.id as string, 1)).toMatchObject({ outcome: "updated" })
      // An archived bundle holds nothing back.
      yield* archive(bundle.record.id as string, 2)
      expect(yield* archive(table.id as string, 1)).toMatchObject({ outcome: "updated" })
    }).pipe(as(principal()))
  )

  it.effect("a type's pricing_scope changes only when the level that loses pricing carries no rule", () =>
    Effect.gen(function* () {
      yield* upsert("customization-types", { external_id: "fabric", name: "Fabric", pricing_scope: "group" })
      yield* upsert("customization-groups", {
        external_id: "g",
        mode: "combined",
        name: "G",
        type_id: { external_id: "fabric" },
        pricing_mode: "percent",
        pricing_value: "30"
      })
      yield* upsert("customization-options", { external_id: "o", name: "Blue", group_id: { external_id: "g" } })
      const toOption = yield* Effect.flip(
        upsert("customization-types", { external_id: "fabric", expected_revision: 1, pricing_scope: "option" })
      )
      expect(toOption).toMatchObject({ code: "invalid_pricing", issues: [{ path: "$.pricing_scope" }] })
      yield* upsert("customization-groups", {
        external_id: "g",
        mode: "prices",
        expected_revision: 1,
        pricing_mode: "none"
      })
      const moved = yield* upsert("customization-types", {
        external_id: "fabric",
        expected_revision: 1,
        pricing_scope: "option"
      })
      expect(moved.record).toMatchObject({ pricing_scope: "option", revision: 2 })
      yield* upsert("customization-options", {
        external_id: "o",
        mode: "prices",
        expected_revision: 1,
        pricing_mode: "fixed",
        pricing_value: "5"
      })
      const back = yield* Effect.flip(
        upsert("customization-types", { external_id: "fabric", expected_revision: 2, pricing_scope: "group" })
      )
      expect(back).toMatchObject({ code: "invalid_pricing", issues: [{ path: "$.pricing_scope" }] })
      // A rename alone is no scope change and passes whatever the children carry.
      expect(
        (yield* upsert("customization-types", { external_id: "fabric", expected_revision: 2, name: "Fabrics" })).outcome
      ).toBe("updated")
    }).pipe(as(principal()))
  )

  it.effect("a group moves to a group-priced type only when its options carry no rule", () =>
    Effect.gen(function* () {
      yield* upsert("customization-types", { external_id: "legs", name: "Legs", pricing_scope: "option" })
      yield* upsert("customization-types", { external_id: "fabric", name: "Fabric", pricing_scope: "group" })
      yield* upsert("customization-groups", { external_id: "g", name: "G", type_id: { external_id: "legs" } })
      yield* upsert("customization-options", {
        external_id: "o",
        mode: "combined",
        name: "Oak",
        group_id: { external_id: "g" },
        pricing_mode: "fixed",
        pricing_value: "15"
      })
      const refused = yield* Effect.flip(
        upsert("customization-groups", { external_id: "g", expected_revision: 1, type_id: { external_id: "fabric" } })
      )
      expect(refused).toMatchObject({ code: "invalid_pricing", issues: [{ path: "$.type_id" }] })
      yield* upsert("customization-options", {
        external_id: "o",
        mode: "prices",
        expected_revision: 1,
        pricing_mode: "none"
      })
      const moved = yield* upsert("customization-groups", {
        external_id: "g",
        expected_revision: 1,
        type_id: { external_id: "fabric" }
      })
      expect(moved.outcome).toBe("updated")
    }).pipe(as(principal()))
  )
})

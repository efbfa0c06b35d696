/**
 * Invalid product bodies: prices in catalog mode, unconfigured tax rates, references to nothing, bundles
 * (components of a single, a product twice, a bundle in a bundle, itself), selection fields (a group of
 * another type, an id the product does not have, one external id twice) and sale validation.
 */
import * as fc from "fast-check"
import { equals } from "../../internal/Shared/Decimal.js"
import type { World } from "../World.js"
import type { PlannedProduct } from "./CatalogPlan.js"
import {
  base,
  type Body,
  catalogMode,
  creates,
  dangling,
  type InvalidWrite,
  label,
  modeOf,
  notPrices,
  without
} from "./Labels.js"
import { reference } from "./ValidBodies.js"
import { coefficient, externalId, money, uuid } from "./Values.js"

/** Product bodies that break one of the product rules, with the answer the use case gives. */
export const productRules = (world: World): ReadonlyArray<fc.Arbitrary<InvalidWrite>> => {
  const products = world.records.products
  const singles = products.filter((p) => p.kind === "single")
  const bundles = products.filter((p) => p.kind === "bundle")
  const types = world.records["customization-types"]
  const groupsOf = (type: string) => world.records["customization-groups"].filter((g) => g.type === type)
  const componentsInBundles = singles.filter((s) => bundles.some((b) => b.components.includes(s.externalId)))
  const single = fc.constantFrom(...singles).chain((p) => reference(world, "products", p.externalId))
  const create = (kind: "single" | "bundle", mode?: "catalog" | "combined") =>
    base(
      world,
      "products",
      (w) => creates(w) && (w.body.kind ?? "single") === kind && (mode === undefined || modeOf(w.body) === mode)
    ).map((w) => without(w.body, "fields", "active"))
  const mismatched = types.flatMap((t) =>
    types
      .filter((other) => other !== t)
      .flatMap((other) => groupsOf(other.externalId).map((g) => ({ type: t, group: g })))
  )
  const unconfigured = money.filter((rate) => !world.plan.settings.tax_rates.some((r) => equals(r, rate)))
  const field = (typeId: unknown, extra: Body = {}) => ({
    external_id: "field-x",
    name: "Seat",
    type_id: typeId,
    ...extra
  })
  const anyType =
    types.length === 0
      ? undefined
      : fc.constantFrom(...types).chain((t) => reference(world, "customization-types", t.externalId))
  const bundleWith = (p: PlannedProduct) => reference(world, "products", p.externalId)
  return [
    fc
      .tuple(base(world, "products", catalogMode), fc.constantFrom("price", "market_price", "cost", "tax_rate"))
      .map(([write, key]) =>
        label("products", `${key} in catalog mode`, "field_not_allowed_in_mode", `$.${key}`, {
          ...write.body,
          [key]: "1.00"
        })
      ),
    fc
      .tuple(
        base(world, "products", (w) => modeOf(w.body) === "combined"),
        unconfigured
      )
      .map(([write, rate]) =>
        label("products", "a tax rate the company has not configured", "tax_rate_not_configured", "$.tax_rate", {
          ...write.body,
          tax_rate: rate
        })
      ),
    fc
      .tuple(base(world, "products", notPrices), dangling, fc.constantFrom("cover_id", "collection_id", "brand_id"))
      .map(([write, ref, key]) =>
        label("products", `a ${key.replace("_id", "")} that does not exist`, "unresolved_reference", `$.${key}`, {
          ...write.body,
          [key]: ref
        })
      ),
    fc.tuple(base(world, "products", notPrices), dangling, fc.nat({ max: 3 })).map(([write, ref, at]) => {
      const sent = (write.body.category_ids as ReadonlyArray<unknown> | undefined) ?? [
        world.idOf("categories", "category-0")
      ]
      const i = Math.min(at, sent.length)
      return label("products", "a category that does not exist", "unresolved_reference", `$.category_ids[${i}]`, {
        ...write.body,
        category_ids: [...sent.slice(0, i), ref, ...sent.slice(i + 1)]
      })
    }),
    fc.tuple(base(world, "products", notPrices), dangling).map(([write, ref]) =>
      label("products", "a media item that does not exist", "unresolved_reference", "$.media_ids[0]", {
        ...write.body,
        media_ids: [ref]
      })
    ),
    base(world, "products", (w) => creates(w) && notPrices(w)).map((write) =>
      label(
        "products",
        "a new product without a category",
        "missing_required_field",
        "$.category_ids",
        without(write.body, "category_ids")
      )
    ),
    fc.tuple(create("single"), single).map(([body, component]) =>
      label("products", "a single product with components", "invalid_bundle", "$.components", {
        ...body,
        components: [{ product_id: component, quantity: 1 }]
      })
    ),
    fc.tuple(create("bundle"), single, fc.integer({ min: 1, max: 10_000 })).map(([body, component, quantity]) =>
      label("products", "a bundle listing a product twice", "invalid_bundle", "$.components[1].product_id", {
        ...body,
        components: [
          { product_id: component, quantity },
          { product_id: component, quantity: 1 }
        ]
      })
    ),
    ...(bundles.length === 0
      ? []
      : [
          fc.tuple(create("bundle"), fc.constantFrom(...bundles).chain(bundleWith)).map(([body, nested]) =>
            label("products", "a bundle of a bundle", "invalid_bundle", "$.components[0].product_id", {
              ...body,
              components: [{ product_id: nested, quantity: 1 }]
            })
          ),
          fc
            .constantFrom(...bundles)
            .chain((b) => bundleWith(b).map((self) => ({ b, self })))
            .map(({ b, self }) =>
              label("products", "a bundle containing itself", "invalid_bundle", "$.components[0].product_id", {
                external_id: b.externalId,
                expected_revision: 1,
                components: [{ product_id: self, quantity: 1 }]
              })
            )
        ]),
    ...(componentsInBundles.length === 0
      ? []
      : [
          fc.constantFrom(...componentsInBundles).map((p) =>
            label("products", "a component of a bundle becoming a bundle", "invalid_bundle", "$.kind", {
              external_id: p.externalId,
              expected_revision: 1,
              kind: "bundle"
            })
          )
        ]),
    ...(mismatched.length === 0
      ? []
      : [
          fc
            .tuple(
              create("single"),
              fc
                .constantFrom(...mismatched)
                .chain(({ type, group }) =>
                  fc.tuple(
                    reference(world, "customization-types", type.externalId),
                    reference(world, "customization-groups", group.externalId)
                  )
                )
            )
            .map(([body, [typeId, groupId]]) =>
              label(
                "products",
                "a selection field linking a group of another type",
                "invalid_selection_field",
                "$.fields[0].group_ids[0]",
                {
                  ...body,
                  fields: [field(typeId, { group_ids: [groupId] })]
                }
              )
            )
        ]),
    ...(anyType === undefined
      ? []
      : [
          fc.tuple(create("single"), anyType, uuid).map(([body, typeId, id]) =>
            label(
              "products",
              "a new field named by an id the product does not have",
              "invalid_selection_field",
              "$.fields[0]",
              {
                ...body,
                fields: [{ id, name: "Seat", type_id: typeId }]
              }
            )
          ),
          fc.tuple(create("single"), anyType).map(([body, typeId]) =>
            label("products", "a field without id or external_id", "invalid_selection_field", "$.fields[0]", {
              ...body,
              fields: [{ name: "Seat", type_id: typeId }]
            })
          ),
          fc.tuple(create("single"), anyType).map(([body, typeId]) =>
            label("products", "two fields with one external_id", "invalid_selection_field", "$.fields[1]", {
              ...body,
              fields: [field(typeId), field(typeId, { name: "Back" })]
            })
          ),
          fc.tuple(create("single", "combined"), anyType, money).map(([body, typeId, price]) =>
            label(
              "products",
              "an active product with a field that links no group",
              "sale_validation_failed",
              "$.fields[0].group_ids",
              {
                ...body,
                price,
                active: true,
                fields: [field(typeId)]
              }
            )
          )
        ]),
    fc
      .tuple(
        fc.constantFrom(...products),
        externalId.filter((id) => !id.startsWith("field-")),
        coefficient
      )
      .map(([p, missing, c]) =>
        label(
          "products",
          "prices mode setting the coefficient of a field the product does not have",
          "invalid_selection_field",
          "$.fields[0]",
          {
            external_id: p.externalId,
            expected_revision: 1,
            mode: "prices",
            fields: [{ external_id: missing, coefficient: c }]
          }
        )
      ),
    create("single", "catalog").map((body) =>
      label("products", "an active product without a price", "sale_validation_failed", "$.price", {
        ...body,
        active: true
      })
    ),
    fc.tuple(create("bundle", "combined"), money).map(([body, price]) =>
      label("products", "an active bundle without components", "sale_validation_failed", "$.components", {
        ...without(body, "components"),
        price,
        active: true
      })
    )
  ]
}

/**
 * Stock writes (POST /inventory, spec 2.11) against a written catalog: valid ones for a new balance of a
 * product or option at a location (set, in, or out of nothing; whole quantities for products counted in
 * pieces, decimals for the others), and invalid ones labelled with the code and path the use case answers.
 */
import * as fc from "fast-check"
import type { Document } from "../../internal/Resources/ResourceDefinition.js"
import type { World } from "../World.js"
import { reference } from "./ValidBodies.js"
import { fractionalQuantity, quantity, text, uuid, wholeQuantity } from "./Values.js"

/** A source of stock in the world: a single product or a customization option, and whether it counts in pieces. */
export interface StockSource {
  readonly kind: "product" | "option"
  readonly externalId: string
  readonly pieces: boolean
}

/** The world's records that hold stock: single products (bundles hold none) and options. */
export const stockSources = (world: World): ReadonlyArray<StockSource> => [
  ...world.records.products
    .filter((p) => p.kind === "single")
    .map((p) => ({
      kind: "product" as const,
      externalId: p.externalId,
      pieces: p.unit === null || p.unit === "piece"
    })),
  ...world.records["customization-options"].map((o) => ({
    kind: "option" as const,
    externalId: o.externalId,
    pieces: false
  }))
]

const resourceOf = (source: StockSource) => (source.kind === "product" ? "products" : "customization-options")

/** A quantity the source takes: whole ("12", "12.000") in pieces, any other quantity otherwise. */
export const quantityFor = (source: StockSource): fc.Arbitrary<string> =>
  source.pieces ? wholeQuantity : fc.oneof(quantity, fractionalQuantity)

/** A stock write of the world's principal: its body and the outcome a new balance gives it. */
export interface StockWriteCase {
  readonly body: Document
  readonly outcome: "created"
}

const body = (world: World, location: string, source: StockSource) =>
  fc.record({
    event_id: uuid,
    source_kind: fc.constant(source.kind),
    source_id: reference(world, resourceOf(source), source.externalId),
    location_id: fc.constant(location),
    revision: fc.constant(0),
    note: text(1, 1000)
  })

/** Valid stock writes to a new balance at `location` (a location the principal may write). */
export const stockWrite = (world: World, location: string): fc.Arbitrary<StockWriteCase> =>
  fc.constantFrom(...stockSources(world)).chain((source) =>
    fc
      .tuple(
        body(world, location, source),
        fc.oneof(
          fc.record({ action: fc.constantFrom("set", "in"), quantity: quantityFor(source) }),
          // Out of a new balance: only nothing can be taken.
          fc.record({ action: fc.constant("out"), quantity: fc.constantFrom("0", "0.000", "000") })
        )
      )
      .map(([fields, change]) => ({ body: { ...fields, ...change }, outcome: "created" as const }))
  )

/** An invalid stock write, labelled as `InvalidWrite`s are: the rule, the code and the path (null for none). */
export interface InvalidStockWrite {
  readonly body: Document
  readonly rule: string
  readonly code: string
  readonly path: string | null
}

/** Invalid stock writes to a new balance at `location`, each breaking one rule of the body or of stock. */
export const invalidStockWrite = (world: World, location: string): fc.Arbitrary<InvalidStockWrite> => {
  const valid = stockWrite(world, location).map((c) => c.body)
  const pieces = stockSources(world).filter((s) => s.pieces)
  const bundles = world.records.products.filter((p) => p.kind === "bundle")
  const label = (rule: string, code: string, path: string | null) => (b: Document) => ({ body: b, rule, code, path })
  const keys = ["event_id", "source_kind", "source_id", "location_id", "action", "quantity", "revision", "note"]
  return fc.oneof(
    fc
      .tuple(valid, fc.constantFrom(...keys))
      .map(([b, key]) =>
        label(
          `${key} missing`,
          "validation_failed",
          `$.${key}`
        )(Object.fromEntries(Object.entries(b).filter(([k]) => k !== key)))
      ),
    fc
      .tuple(valid, fc.stringMatching(/^[a-z]{1,8}$/))
      .map(([b, key]) => label("an unknown key", "validation_failed", `$.x_${key}`)({ ...b, [`x_${key}`]: 1 })),
    fc
      .tuple(valid, fc.constantFrom("1.2345", "1234567890", "-1", "1e3", "", 5))
      .map(([b, q]) =>
        label("a quantity out of the pattern", "validation_failed", "$.quantity")({ ...b, quantity: q })
      ),
    fc
      .tuple(valid, fc.constantFrom("", 7))
      .map(([b, note]) => label("an empty note", "validation_failed", "$.note")({ ...b, note })),
    fc
      .tuple(valid, text(1001, 1010))
      .map(([b, note]) => label("a note longer than 1000 characters", "validation_failed", "$.note")({ ...b, note })),
    fc
      .tuple(valid, fc.constantFrom("bundle", "Product", "fabric"))
      .map(([b, kind]) =>
        label("an unknown source_kind", "validation_failed", "$.source_kind")({ ...b, source_kind: kind })
      ),
    fc
      .tuple(valid, fc.constantFrom("move", "SET", "add"))
      .map(([b, action]) => label("an unknown action", "validation_failed", "$.action")({ ...b, action })),
    fc
      .tuple(valid, fc.constantFrom(-1, 1.5, "0"))
      .map(([b, revision]) =>
        label("a revision that is not a non-negative integer", "validation_failed", "$.revision")({ ...b, revision })
      ),
    fc
      .tuple(valid, uuid)
      .map(([b, id]) =>
        label("a source that does not exist", "unresolved_reference", "$.source_id")({ ...b, source_id: id })
      ),
    fc
      .tuple(valid, uuid)
      .map(([b, id]) =>
        label("a location of no company", "unknown_location", "$.location_id")({ ...b, location_id: id })
      ),
    fc
      .tuple(valid, fc.integer({ min: 1, max: 9 }))
      .map(([b, revision]) =>
        label("a revision above 0 for a new balance", "revision_conflict", null)({ ...b, revision })
      ),
    fc.tuple(valid, fc.integer({ min: 1, max: 999 })).map(([b, q]) =>
      label(
        "taking stock out of an empty balance",
        "stock_below_zero",
        "$.quantity"
      )({
        ...b,
        action: "out",
        quantity: String(q)
      })
    ),
    ...(pieces.length === 0
      ? []
      : [
          fc.tuple(valid, fc.constantFrom(...pieces), fractionalQuantity).chain(([b, source, q]) =>
            reference(world, "products", source.externalId).map((ref) =>
              label(
                "a fraction for a product counted in pieces",
                "quantity_not_whole",
                "$.quantity"
              )({
                ...b,
                source_kind: "product",
                source_id: ref,
                action: "set",
                quantity: q
              })
            )
          )
        ]),
    ...(bundles.length === 0
      ? []
      : [
          fc.tuple(valid, fc.constantFrom(...bundles)).chain(([b, bundle]) =>
            reference(world, "products", bundle.externalId).map((ref) =>
              label(
                "a bundle, which holds no stock of its own",
                "source_not_stocked",
                "$.source_id"
              )({
                ...b,
                source_kind: "product",
                source_id: ref,
                action: "set",
                quantity: "1"
              })
            )
          )
        ])
  )
}

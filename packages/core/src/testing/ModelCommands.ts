/**
 * The model harness's commands, as data a counterexample prints: upserts, bindings, archives, stock
 * writes, reservations, replays, imports and feed reads, drawn over a few external ids and values so that
 * they meet each other (the same records, unchanged writes, stale revisions).
 */
import * as fc from "fast-check"
import type { ActorName } from "./ReferenceModel.js"

/** Which `expected_revision` a generated write sends. */
export type RevisionChoice = "right" | "stale" | "omit"
/** The categories a generated command may touch, by external id. */
export type Categories = "c0" | "c1" | "c2"
/** The products a generated command may touch, by external id. */
export type Products = "p0" | "p1" | "p2"

/** One generated command of the model harness. */
export type Command =
  | {
      readonly kind: "upsert"
      readonly actor: ActorName
      readonly resource: "categories"
      readonly ext: Categories
      readonly name?: string
      /** The parent: by `{external_id}` or by uuid; null clears it. */
      readonly parent?: { readonly ext: Categories; readonly byId: boolean } | null
      readonly revision: RevisionChoice
    }
  | {
      readonly kind: "upsert"
      readonly actor: ActorName
      readonly resource: "products"
      readonly ext: Products
      readonly name?: string
      readonly category?: { readonly ext: Categories; readonly byId: boolean }
      /** Sent in combined mode. */
      readonly price?: string
      readonly unit?: "piece" | "metre"
      readonly revision: RevisionChoice
    }
  | {
      /** `target_id`: the actor maps `ext` to the record another actor of its company maps as `target`. */
      readonly kind: "bind"
      readonly actor: ActorName
      readonly resource: "categories" | "products"
      readonly ext: string
      readonly target: { readonly actor: ActorName; readonly ext: string }
    }
  | { readonly kind: "archive"; readonly actor: ActorName; readonly ext: Products; readonly right: boolean }
  | {
      readonly kind: "stock"
      readonly actor: ActorName
      readonly ext: Products
      readonly byId: boolean
      readonly action: "set" | "in" | "out"
      readonly quantity: string
      readonly right: boolean
    }
  | { readonly kind: "reserve"; readonly actor: "a1" | "b1"; readonly ext: Products; readonly reserved: string }
  | {
      /** Sends the last successful write again: with its Idempotency-Key or its event_id, the same body or another. */
      readonly kind: "replay"
      readonly how:
        "upsert-same-key" | "stock-same-key" | "stock-same-event" | "stock-key-other-body" | "stock-event-other-body"
    }
  | {
      readonly kind: "import"
      readonly actor: ActorName
      readonly dryRun: boolean
      readonly items: ReadonlyArray<{
        readonly resource: "categories" | "products"
        readonly ext: string
        readonly name?: string
        /** A category's parent or a product's category, by `{external_id}`. */
        readonly link?: Categories
        readonly right: boolean
      }>
    }
  | { readonly kind: "feed"; readonly actor: ActorName; readonly limit: number }

const actor = fc.constantFrom<ActorName>("a1", "a1", "a2", "b1")
const categoryExt = fc.constantFrom<Categories>("c0", "c1", "c2")
// References and stock mostly name records the bootstrap made, so that most of them resolve.
const linkedCategory = fc.constantFrom<Categories>("c0", "c0", "c0", "c1", "c2")
const productExt = fc.constantFrom<Products>("p0", "p0", "p1", "p2")
// Two names only, so that many writes repeat what is stored (unchanged).
const name = fc.constantFrom("Alpha", "Beta")
const revision = fc.constantFrom<RevisionChoice>("right", "right", "right", "stale", "omit")
// One value in several forms, so that an equal price is unchanged.
const price = fc.constantFrom("10", "10.0", "10.00", "010.5", "10.50", "12")
const stockQuantity = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 9 }).map(String) },
  { weight: 2, arbitrary: fc.constantFrom("2.000", "2.5", "0.75", "999999999", "0.001") }
)

const upsertCommand: fc.Arbitrary<Command> = fc.oneof(
  fc
    .record(
      {
        actor,
        ext: categoryExt,
        name,
        parent: fc.option(fc.record({ ext: linkedCategory, byId: fc.boolean() }), { nil: null, freq: 3 }),
        revision
      },
      { requiredKeys: ["actor", "ext", "revision"] }
    )
    .map((c): Command => ({ kind: "upsert", resource: "categories", ...c })),
  fc
    .record(
      {
        actor,
        ext: productExt,
        name,
        category: fc.record({ ext: linkedCategory, byId: fc.boolean() }),
        price,
        unit: fc.constantFrom<"piece" | "metre">("piece", "metre"),
        revision
      },
      { requiredKeys: ["actor", "ext", "revision"] }
    )
    .map((c): Command => ({ kind: "upsert", resource: "products", ...c }))
)

/** Commands, weighted towards writes; the feed is read now and then (and to its end after every sequence). */
export const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 8, arbitrary: upsertCommand },
  {
    weight: 1,
    arbitrary: fc
      .record({
        actor: fc.constantFrom<ActorName>("a1", "a2"),
        resource: fc.constantFrom<"categories" | "products">("categories", "products"),
        ext: fc.constantFrom("c0", "c1", "p0", "p1", "x9"),
        target: fc.record({
          actor: fc.constantFrom<ActorName>("a1", "a2", "b1"),
          ext: fc.constantFrom("c0", "c1", "p0", "p1")
        })
      })
      .map((c): Command => ({ kind: "bind", ...c }))
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ actor, ext: productExt, right: fc.boolean() })
      .map((c): Command => ({ kind: "archive", ...c }))
  },
  {
    weight: 4,
    arbitrary: fc
      .record({
        actor,
        ext: productExt,
        byId: fc.boolean(),
        action: fc.constantFrom<"set" | "in" | "out">("set", "in", "out"),
        quantity: stockQuantity,
        right: fc.constantFrom(true, true, true, false)
      })
      .map((c): Command => ({ kind: "stock", ...c }))
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        actor: fc.constantFrom<"a1" | "b1">("a1", "b1"),
        ext: productExt,
        reserved: fc.integer({ min: 0, max: 6 }).map(String)
      })
      .map((c): Command => ({ kind: "reserve", ...c }))
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom<Extract<Command, { kind: "replay" }>["how"]>(
        "upsert-same-key",
        "stock-same-key",
        "stock-same-event",
        "stock-key-other-body",
        "stock-event-other-body"
      )
      .map((how): Command => ({ kind: "replay", how }))
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        actor,
        dryRun: fc.boolean(),
        items: fc.uniqueArray(
          fc.oneof(
            fc.record(
              {
                resource: fc.constant("categories" as const),
                ext: categoryExt,
                name,
                link: categoryExt,
                right: fc.boolean()
              },
              { requiredKeys: ["resource", "ext", "right"] }
            ),
            fc.record(
              {
                resource: fc.constant("products" as const),
                ext: productExt,
                name,
                link: categoryExt,
                right: fc.boolean()
              },
              { requiredKeys: ["resource", "ext", "right"] }
            )
          ),
          { minLength: 1, maxLength: 4, selector: (item) => `${item.resource}|${item.ext}` }
        )
      })
      .map((c): Command => ({ kind: "import", ...c }))
  },
  {
    weight: 2,
    arbitrary: fc.record({ actor, limit: fc.integer({ min: 1, max: 4 }) }).map((c): Command => ({ kind: "feed", ...c }))
  }
)

const create = (
  actorName: ActorName,
  resource: "categories" | "products",
  ext: string,
  link?: Categories,
  unit?: "metre"
): Command =>
  resource === "categories"
    ? {
        kind: "upsert",
        actor: actorName,
        resource,
        ext: ext as Categories,
        name: "Alpha",
        revision: "right",
        ...(link === undefined ? {} : { parent: { ext: link, byId: false } })
      }
    : {
        kind: "upsert",
        actor: actorName,
        resource,
        ext: ext as Products,
        name: "Alpha",
        category: { ext: link ?? "c0", byId: false },
        ...(unit === undefined ? {} : { unit }),
        revision: "right"
      }

/** Records most sequences start from (a counterexample keeps only those it needs). */
const bootstrap: ReadonlyArray<Command> = [
  create("a1", "categories", "c0"),
  create("a1", "categories", "c1", "c0"),
  create("a1", "products", "p0"),
  create("a1", "products", "p1", "c1", "metre"),
  create("a2", "categories", "c0"),
  create("a2", "products", "p2"),
  create("b1", "categories", "c0"),
  create("b1", "products", "p0")
]

/** A command sequence: what each property run executes in fresh companies. */
export const commands = (maxCommands = 30): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc
    .tuple(
      // Each bootstrap record is kept four times in five; shrinking drops the ones a counterexample does not need.
      fc.tuple(...bootstrap.map(() => fc.nat(4).map((n) => n > 0))).map((kept) => bootstrap.filter((_, i) => kept[i])),
      fc.array(command, { minLength: 1, maxLength: maxCommands, size: "max" })
    )
    .map(([first, rest]) => [...first, ...rest])

/**
 * The house rule, property-tested with the kit: over catalogs the kit writes, every valid product body
 * it generates is refused at `$.price` exactly when its price is above its market price, and accepted
 * otherwise; the kit's invalid bodies keep the core's answer through the application's wrapper.
 */
import { CatalogService, Ids } from "@catalog-sync/core"
import { InMemory } from "@catalog-sync/core/memory"
import { Arbitraries, forAllWorlds, invalidMismatch, Probe, validMismatch } from "@catalog-sync/core/testing"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { upsertWithHouseRules } from "../src/HouseRules.js"

// The catalog use case over every port in memory.
const Catalog = CatalogService.CatalogService.Default.pipe(
  Layer.provideMerge(InMemory.layer),
  Layer.provideMerge(Ids.IdsLive)
)

/** The rule written out independently of the application's code: compares the decimal strings digit by digit. */
const above = (body: Readonly<Record<string, unknown>>): boolean => {
  const { price, market_price } = body
  if (typeof price !== "string" || typeof market_price !== "string") return false
  const digits = (money: string) => {
    const [whole = "0", fraction = ""] = money.split(".")
    return `${whole.replace(/^0+/, "").padStart(17, "0")}${fraction.padEnd(2, "0")}`
  }
  return digits(price) > digits(market_price)
}

layer(Catalog)("house rules", (it) => {
  it.effect(
    "a valid product body is refused at $.price when priced above its market price, and accepted otherwise",
    () =>
      forAllWorlds(
        (world) => Arbitraries.validWrite(world, "products"),
        (_, write) =>
          Effect.gen(function* () {
            const answer = yield* Probe.answer(Probe.rolledBack(upsertWithHouseRules("products", write.body)))
            if (above(write.body)) {
              expect(answer).toMatchObject({ _tag: "Refused", code: "price_above_market_price", paths: ["$.price"] })
            } else {
              expect(validMismatch(write, answer as Probe.Answer<{ readonly outcome: string }>)).toBeUndefined()
            }
          }),
        { seed: 4242, runs: 500 }
      ),
    120_000
  )

  it.effect(
    "the core's rules still answer as they did: the kit's invalid bodies are refused with their labelled code and path",
    () =>
      forAllWorlds(
        (world) => Arbitraries.invalidWrite(world, "products").filter((write) => !above(write.body)),
        (_, write) =>
          Effect.gen(function* () {
            const answer = yield* Probe.answer(Probe.rolledBack(upsertWithHouseRules("products", write.body)))
            expect(invalidMismatch(write, answer)).toBeUndefined()
          }),
        { seed: 4242, runs: 300 }
      ),
    120_000
  )
})

/**
 * A rule of the application's own, on top of the core's: a product may not be priced above its market
 * price. The application checks it on the decoded body before it hands the body to the catalog use case.
 */
import { CatalogService, Decode } from "@catalog-sync/core"
import { Data, Effect } from "effect"

/** Refused by a house rule; `code` and `issues` read as the core's own errors do. */
export class HouseRuleViolation extends Data.TaggedError("HouseRuleViolation")<{
  readonly message: string
  readonly issues: ReadonlyArray<{ readonly path: string; readonly message: string }>
}> {
  get code(): "price_above_market_price" {
    return "price_above_market_price"
  }
}

/** A money string ("1299", "1299.5", "01299.50") as a count of cents, exactly. */
const cents = (money: string): bigint => {
  const [whole = "0", fraction = ""] = money.split(".")
  return BigInt(whole) * 100n + BigInt(fraction.padEnd(2, "0"))
}

/** The house rules a body breaks (a product whose body sends both prices, the price above the market price). */
export const houseRuleIssues = (
  resource: string,
  body: Readonly<Record<string, unknown>>
): ReadonlyArray<{ readonly path: string; readonly message: string }> => {
  const { price, market_price } = body
  return resource === "products" &&
    typeof price === "string" &&
    typeof market_price === "string" &&
    cents(price) > cents(market_price)
    ? [{ path: "$.price", message: `${price} is above the market price ${market_price}` }]
    : []
}

/** Decodes a body as the HTTP API does, checks the house rules, then upserts through the catalog use case. */
export const upsertWithHouseRules = (resource: Parameters<typeof Decode.decodeUpsert>[0], input: unknown) =>
  Effect.gen(function* () {
    const body = yield* Effect.fromResult(Decode.decodeUpsert(resource, input))
    const issues = houseRuleIssues(resource, body)
    if (issues.length > 0) return yield* new HouseRuleViolation({ message: "a house rule is broken", issues })
    const catalog = yield* CatalogService.CatalogService
    return yield* catalog.upsert(resource, body)
  })

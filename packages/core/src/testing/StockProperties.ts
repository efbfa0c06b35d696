/**
 * The stock write rules as properties over any layer of the ports: generated valid stock writes to a new
 * balance are accepted (`created`), invalid ones refused with their labelled code and path. Each write is
 * tried against one of a few written catalogs, in a transaction that is rolled back.
 */
import { Effect } from "effect"
import type { Accounts } from "../Auth/Accounts.js"
import type { CatalogService } from "../Catalog/CatalogService.js"
import type { InventoryService } from "../Inventory/InventoryService.js"
import type { Transactor } from "../Shared/Transactor.js"
import { invalidStockWrite, stockWrite } from "./arbitraries/Stock.js"
import { assertOverWorlds, invalidMismatch, writeWorlds } from "./BodyProperties.js"
import { type Answer, tryStockWrite } from "./Probe.js"
import { type ReplayOptions, runs, seedOf } from "./Replay.js"
import { stockLocation } from "./World.js"

export interface StockPropertyOptions extends ReplayOptions {
  /** Valid stock writes tried (default 300). */
  readonly validRuns?: number | undefined
  /** Invalid stock writes tried (default 300). */
  readonly invalidRuns?: number | undefined
  /** Catalogs written, each with a location its connection may write (default 2). */
  readonly worlds?: number | undefined
}

const describe = (answer: Answer<{ readonly outcome: string }>) =>
  answer._tag === "Accepted"
    ? `accepted (${answer.value.outcome})`
    : `refused with ${answer.code} at ${JSON.stringify(answer.paths)}`

/** Asserts the stock properties on the ports of the context; throws fast-check's report on the first failure. */
export const checkStockWrites = (options: StockPropertyOptions = {}) =>
  Effect.gen(function* () {
    const seed = seedOf(options)
    if (!runs(options, "stock: valid") && !runs(options, "stock: invalid")) return { seed }
    const worlds = yield* writeWorlds(seed, options.worlds ?? 2)
    const locations = yield* Effect.forEach(worlds, stockLocation)
    const byWorld = new Map(worlds.map((world, i) => [world, locations[i]!]))
    if (runs(options, "stock: valid"))
      yield* assertOverWorlds(
        "stock: valid",
        worlds,
        (world) => stockWrite(world, byWorld.get(world)!),
        (_, { body, outcome }) =>
          Effect.flatMap(tryStockWrite(body), (answer) =>
            answer._tag === "Accepted" && answer.value.outcome === outcome
              ? Effect.void
              : Effect.die(new Error(`a valid stock write was ${describe(answer)}, not ${outcome}`))
          ),
        { ...options, seed, numRuns: options.validRuns ?? 300 }
      )
    if (runs(options, "stock: invalid"))
      yield* assertOverWorlds(
        "stock: invalid",
        worlds,
        (world) => invalidStockWrite(world, byWorld.get(world)!),
        (_, write) =>
          Effect.flatMap(tryStockWrite(write.body), (answer) => {
            const mismatch = invalidMismatch(write, answer)
            return mismatch === undefined ? Effect.void : Effect.die(new Error(mismatch))
          }),
        { ...options, seed, numRuns: options.invalidRuns ?? 300 }
      )
    return { seed }
  }) satisfies Effect.Effect<unknown, unknown, CatalogService | InventoryService | Transactor | Accounts>

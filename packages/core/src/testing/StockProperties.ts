/**
 * The stock write rules as properties over any layer of the ports: generated valid stock writes to a new
 * balance are accepted (`created`), invalid ones refused with their labelled code and path. Each write is
 * tried against one of a few written catalogs, in a transaction that is rolled back.
 */
import { Effect, FastCheck as fc, Runtime } from "effect"
import type { Accounts } from "../Auth/Accounts.js"
import { CurrentPrincipal } from "../Auth/Principal.js"
import type { CatalogService } from "../Catalog/CatalogService.js"
import type { InventoryService } from "../Inventory/InventoryService.js"
import type { Transactor } from "../Shared/Transactor.js"
import { invalidStockWrite, stockWrite } from "./arbitraries/Stock.js"
import { invalidMismatch, writeWorlds } from "./BodyProperties.js"
import { type Answer, breathe, tryStockWrite } from "./Probe.js"
import { stockLocation } from "./World.js"

export interface StockPropertyOptions {
  /** Valid stock writes tried (default 300). */
  readonly validRuns?: number | undefined
  /** Invalid stock writes tried (default 300). */
  readonly invalidRuns?: number | undefined
  /** Catalogs written, each with a location its connection may write (default 2). */
  readonly worlds?: number | undefined
  readonly seed?: number | undefined
  readonly path?: string | undefined
}

const describe = (answer: Answer<{ readonly outcome: string }>) =>
  answer._tag === "Accepted"
    ? `accepted (${answer.value.outcome})`
    : `refused with ${answer.code} at ${JSON.stringify(answer.paths)}`

/** Asserts the stock properties on the ports of the context; throws fast-check's report on the first failure. */
export const checkStockWrites = (options: StockPropertyOptions = {}) =>
  Effect.gen(function* () {
    const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31)
    const worlds = yield* writeWorlds(seed, options.worlds ?? 2)
    const locations = yield* Effect.forEach(worlds, stockLocation)
    const runtime = yield* Effect.runtime<InventoryService | Transactor>()
    const attempt = (i: number, body: unknown) =>
      Runtime.runPromise(runtime)(Effect.provideService(tryStockWrite(body), CurrentPrincipal, worlds[i]!.principal))
    const world = fc.nat({ max: worlds.length - 1 })
    const parameters = (s: number, numRuns: number) => ({
      seed: s,
      numRuns,
      ...(options.path === undefined ? {} : { path: options.path })
    })
    yield* Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          world.chain((i) => stockWrite(worlds[i]!, locations[i]!).map((write) => ({ world: i, ...write }))),
          async ({ world: i, body, outcome }) => {
            await breathe()
            const answer = await attempt(i, body)
            if (answer._tag !== "Accepted" || answer.value.outcome !== outcome)
              throw new Error(`a valid stock write was ${describe(answer)}, not ${outcome}`)
          }
        ),
        parameters(seed, options.validRuns ?? 300)
      )
    )
    yield* Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          world.chain((i) => invalidStockWrite(worlds[i]!, locations[i]!).map((write) => ({ world: i, ...write }))),
          async (write) => {
            await breathe()
            const mismatch = invalidMismatch(write, await attempt(write.world, write.body))
            if (mismatch !== undefined) throw new Error(mismatch)
          }
        ),
        parameters(seed + 1, options.invalidRuns ?? 300)
      )
    )
    return { seed }
  }) satisfies Effect.Effect<unknown, unknown, CatalogService | InventoryService | Transactor | Accounts>

/**
 * The model harness as a vitest suite over a layer of the ports (`runModelHarness`): the command
 * sequences of `checkModel`, the stock properties, shuffled imports and concurrent write schedules, each
 * registered as a test. The part of the harness that needs vitest; `ModelCheck.ts` holds the rest.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { checkConcurrency } from "./Concurrency.js"
import { checkImportBatches } from "./ImportProperties.js"
import { checkModel, type ModelOptions } from "./ModelCheck.js"
import { type ModelPorts, portsTarget, servicesOf } from "./PortsTarget.js"
import { runs } from "./Replay.js"
import { checkStockWrites } from "./StockProperties.js"

/**
 * Registers the model harness as vitest tests over `ports` (built once; each run works in new companies):
 * generated command sequences against the reference model, generated stock writes against their rules,
 * catalogs imported in shuffled batches against the same catalogs written in order, and concurrent
 * write schedules against a serial order of their accepted writes.
 * `runModelHarness("SQLite", SqlitePorts, { seed: 42 })`.
 */
export const runModelHarness = (name: string, ports: Layer.Layer<ModelPorts, unknown>, options: ModelOptions = {}) =>
  layer(servicesOf(ports), { timeout: 600_000 })(`model harness: ${name}`, (it) => {
    it.effect(
      `${options.runs ?? 30} command sequences agree with the reference model`,
      () =>
        Effect.flatMap(portsTarget, (target) => checkModel(target, options)).pipe(
          Effect.tap((figures) =>
            Effect.sync(() =>
              console.log(
                `model harness on ${name}: seed ${figures.seed}, ${figures.commands} commands checked, ${figures.requests} requests, ${figures.changes} feed changes matched`
              )
            )
          )
        ),
      600_000
    )
    it.effect(
      "generated stock writes are accepted, or refused with their labelled code and path",
      () => Effect.asVoid(checkStockWrites(options)),
      600_000
    )
    it.effect(
      "a catalog imported in shuffled batches, each record after those it references, is the catalog written in order",
      () =>
        Effect.map(checkImportBatches({ ...options, runs: 10 }), ({ outOfOrder }) => {
          if (runs(options, "imports")) expect(outOfOrder).toBeGreaterThan(0)
        }),
      600_000
    )
    it.effect(
      "concurrent write schedules commit in an order that explains every answer",
      () => Effect.asVoid(Effect.flatMap(portsTarget, (target) => checkConcurrency(target, options))),
      600_000
    )
  })

/**
 * The model harness as a property (`checkModel`, over any `Target`) and as a vitest suite over a layer of
 * the ports (`runModelHarness`). A seed reproduces a run; a failure prints the shrunk command sequence, the
 * first disagreement and the options (`seed`, `path`, `only`) that replay it.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fc from "fast-check"
import { accountsLayer, idempotencyLayer, layer as memoryLayer } from "../memory/InMemory.js"
import { layer as memoryInventory } from "../memory/InMemoryInventory.js"
import { layer as memoryJobs } from "../memory/InMemoryJobs.js"
import { checkConcurrency } from "./Concurrency.js"
import { checkImportBatches } from "./ImportProperties.js"
import { commands } from "./ModelCommands.js"
import { runSequence } from "./ModelHarness.js"
import { emptyFigures, type Figures } from "./ModelRun.js"
import type { Target } from "./ModelTarget.js"
import { type ModelPorts, portsTarget, servicesOf } from "./PortsTarget.js"
import { assertProperty, pause, type ReplayOptions, runs, seedOf } from "./Replay.js"
import { checkStockWrites } from "./StockProperties.js"

export interface ModelOptions extends ReplayOptions {
  /** Command sequences run (default 30), each in new companies. */
  readonly runs?: number | undefined
  /** The longest sequence (default 30 commands). */
  readonly maxCommands?: number | undefined
  /** Shrink a failing sequence to a small counterexample (default true; each step reruns a sequence). */
  readonly shrink?: boolean | undefined
}

/** Runs generated command sequences against `target` and the reference model; fails at the first disagreement. */
export const checkModel = (target: Target, options: ModelOptions = {}) =>
  Effect.gen(function* () {
    const figures: Figures = emptyFigures()
    const seed = seedOf(options)
    if (runs(options, "sequences"))
      yield* assertProperty(
        "sequences",
        fc.asyncProperty(commands(options.maxCommands ?? 30), async (sequence) => {
          await pause()
          await Effect.runPromise(Effect.asVoid(runSequence(target, sequence, figures)))
        }),
        { ...options, seed, numRuns: options.runs ?? 30 }
      )
    return { seed, ...figures }
  })

/** Every port the harness drives, in memory: the reference the adapters are held to. */
export const memoryPorts: Layer.Layer<ModelPorts> = Layer.mergeAll(
  memoryInventory.pipe(Layer.provideMerge(memoryLayer)),
  accountsLayer,
  idempotencyLayer,
  memoryJobs
)

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

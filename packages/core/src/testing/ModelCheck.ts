/**
 * The model harness as a property over any `Target` (`checkModel`), and every port it drives in memory
 * (`memoryPorts`). A seed reproduces a run; a failure prints the shrunk command sequence, the first
 * disagreement and the options (`seed`, `path`, `only`) that replay it.
 */
import { Effect, Layer } from "effect"
import * as fc from "fast-check"
import { accountsLayer, idempotencyLayer, layer as memoryLayer, peopleLayer } from "../memory/InMemory.js"
import { layer as memoryInventory } from "../memory/InMemoryInventory.js"
import { layer as memoryJobs } from "../memory/InMemoryJobs.js"
import { commands } from "./ModelCommands.js"
import { runSequence } from "./ModelHarness.js"
import { emptyFigures, type Figures } from "./ModelRun.js"
import type { Target } from "./ModelTarget.js"
import type { ModelPorts } from "./PortsTarget.js"
import { assertProperty, pause, type ReplayOptions, runs, seedOf } from "./Replay.js"

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
  memoryJobs,
  peopleLayer
)

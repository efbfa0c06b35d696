/**
 * The toy adapter, proven as the project's own adapters are: the conformance suite of its ports, then the
 * model harness (generated command sequences, stock writes and concurrent schedules against the reference
 * model) with the toy in place of the in-memory change log.
 */
import { InMemory } from "@catalog-sync/core/memory"
import { memoryPorts, runConformance, runModelHarness } from "@catalog-sync/core/testing"
import { Layer } from "effect"
import * as ToyChangeLog from "../src/ToyChangeLog.js"

runConformance("toy change log", ToyChangeLog.layer.pipe(Layer.provideMerge(InMemory.layer)))

runModelHarness("toy change log", ToyChangeLog.layer.pipe(Layer.provideMerge(memoryPorts)), { seed: 4242, runs: 20 })

import { memoryPorts, runModelHarness } from "../src/testing.js"

runModelHarness("in memory", memoryPorts, { seed: 20_261_201, runs: 40 })

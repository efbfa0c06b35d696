import { runModelHarness } from "@catalog-sync/core/testing"
import { describe, layer } from "@effect/vitest"
import { shared, unavailableReason } from "../src/testing.js"

const skip = unavailableReason()
if (skip !== undefined) console.warn(`\n*** ${skip} ***\n`)

const cluster = shared()

describe.skipIf(skip !== undefined)("PostgreSQL", () => {
  layer(cluster.layer, { timeout: 60_000 })("the domain kit on PostgreSQL", () => {
    runModelHarness("PostgreSQL", cluster.layerOf(), { seed: 20_261_201, runs: 40 })
  })
})

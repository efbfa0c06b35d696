import { SqlRateLimiter } from "@catalog-sync/adapter-sql"
import {
  runAccountsConformance,
  runConformance,
  runIdempotencyConformance,
  runPeopleConformance,
  runInventoryConformance,
  runJobsConformance,
  runMediaRepositoryConformance,
  runRateLimiterConformance
} from "@catalog-sync/core/testing"
import { describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { expect } from "vitest"
import { shared, unavailableReason } from "../src/testing.js"

const skip = unavailableReason()
if (skip !== undefined) console.warn(`\n*** ${skip} ***\n`)

const cluster = shared()

// One throwaway cluster for the file; each suite gets its own database on it.
describe.skipIf(skip !== undefined)("PostgreSQL", () => {
  layer(cluster.layer, { timeout: 60_000 })("conformance on PostgreSQL", (it) => {
    it.effect("the cluster is up", () =>
      Effect.map(Effect.scoped(cluster.freshDatabase), (url) => expect(url).toMatch(/^postgres:/))
    )
    runConformance("PostgreSQL", cluster.layerOf())
    runAccountsConformance("PostgreSQL", cluster.layerOf())
    runIdempotencyConformance("PostgreSQL", cluster.layerOf())
    runPeopleConformance("PostgreSQL", cluster.layerOf())
    runRateLimiterConformance("PostgreSQL", SqlRateLimiter.layer.pipe(Layer.provide(cluster.layerOf())))
    runInventoryConformance("PostgreSQL", cluster.layerOf())
    runJobsConformance("PostgreSQL", cluster.layerOf())
    runMediaRepositoryConformance("PostgreSQL", cluster.layerOf())
  })
})

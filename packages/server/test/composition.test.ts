import { CatalogSync } from "@catalog-sync/adapter-http"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect } from "effect"
import { RuntimeConfig } from "../src/RuntimeConfig.js"

// Embedders get CatalogSync.layer's defaults, the server its environment's: with nothing set, the same.
describe("CatalogSync.defaults", () => {
  it.effect("are the server's defaults when the environment sets none", () =>
    Effect.gen(function* () {
      const runtime = yield* Effect.provideService(
        RuntimeConfig,
        ConfigProvider.ConfigProvider,
        ConfigProvider.fromEnvRecord({})
      )
      const { defaults } = CatalogSync
      expect(runtime.jobWorkers).toBe(defaults.jobWorkers)
      expect(runtime.jobPollMillis).toBe(defaults.jobPollMillis)
      for (const name of ["jobLease", "jobRetention", "idempotencyLease", "mediaProcessingTimeout"] as const)
        expect(Duration.toMillis(runtime[name]), name).toBe(Duration.toMillis(defaults[name]))
    })
  )
})

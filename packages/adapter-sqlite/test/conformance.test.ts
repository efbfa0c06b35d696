import { SqlRateLimiter } from "@catalog-sync/adapter-sql"
import {
  runAccountsConformance,
  runConformance,
  runIdempotencyConformance,
  runPeopleConformance,
  runRateLimiterConformance
} from "@catalog-sync/core/testing"
import { Layer } from "effect"
import { tempLayer } from "./support.js"

runConformance("SQLite (file in a temp folder)", tempLayer())
runAccountsConformance("SQLite (file in a temp folder)", tempLayer())
runIdempotencyConformance("SQLite (file in a temp folder)", tempLayer())
runPeopleConformance("SQLite (file in a temp folder)", tempLayer())
runRateLimiterConformance("SQLite (file in a temp folder)", SqlRateLimiter.layer.pipe(Layer.provide(tempLayer())))

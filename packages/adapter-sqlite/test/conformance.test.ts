import { SqlRateLimiter } from "@catalog-sync/adapter-sql"
import {
  runAccountsConformance,
  runConformance,
  runIdempotencyConformance,
  runRateLimiterConformance
} from "@catalog-sync/core/testing"
import { Layer } from "effect"
import { serverLikeLayer, tempLayer } from "./support.js"

runConformance("SQLite (file in a temp folder)", tempLayer())
runAccountsConformance("SQLite (file in a temp folder)", tempLayer())
runIdempotencyConformance("SQLite (file in a temp folder)", tempLayer())
runRateLimiterConformance("SQLite (file in a temp folder)", SqlRateLimiter.layer.pipe(Layer.provide(tempLayer())))
runConformance("SQLite (as the server runs it: tracer off, side-connection reads)", serverLikeLayer())
runIdempotencyConformance("SQLite (as the server runs it: tracer off, side-connection reads)", serverLikeLayer())

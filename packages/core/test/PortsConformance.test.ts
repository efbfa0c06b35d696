import { InMemoryRateLimiter } from "@catalog-sync/core"
import {
  InMemory,
  runAccountsConformance,
  runIdempotencyConformance,
  runRateLimiterConformance
} from "@catalog-sync/core/testing"

runAccountsConformance("in memory", InMemory.accountsLayer)
runIdempotencyConformance("in memory", InMemory.idempotencyLayer)
runRateLimiterConformance("in memory", InMemoryRateLimiter.layer)

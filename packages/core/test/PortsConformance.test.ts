import { InMemoryRateLimiter } from "@catalog-sync/core"
import { Layer } from "effect"
import {
  InMemory,
  runAccountsConformance,
  runIdempotencyConformance,
  runPeopleConformance,
  runRateLimiterConformance
} from "@catalog-sync/core/testing"

runAccountsConformance("in memory", InMemory.accountsLayer)
runIdempotencyConformance("in memory", InMemory.idempotencyLayer)
runPeopleConformance("in memory", Layer.merge(InMemory.accountsLayer, InMemory.peopleLayer))
runRateLimiterConformance("in memory", InMemoryRateLimiter.layer)

import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { makeDryRunGate, maxConcurrentDryRuns } from "../src/internal/Imports/DryRunGate.js"

describe("the dry-run gate", () => {
  it.effect(
    "admits a company's dry runs up to the bound, refuses the next with 429 rate_limited, and frees a place when one ends",
    () =>
      Effect.gen(function* () {
        const gate = makeDryRunGate()
        const scopes = yield* Effect.forEach(Array.from({ length: maxConcurrentDryRuns }), () => Scope.make())
        for (const scope of scopes) yield* Scope.provide(gate.enter("company-a"), scope)
        const refused = yield* Effect.flip(Effect.scoped(gate.enter("company-a")))
        expect(refused._tag).toBe("RateLimited")
        expect(refused.code).toBe("rate_limited")
        expect(refused.retry_after).toBeGreaterThanOrEqual(1)
        // Another company is not held back by the first one's dry runs.
        yield* Effect.scoped(gate.enter("company-b"))
        yield* Scope.close(scopes[0]!, Exit.void)
        yield* Effect.scoped(gate.enter("company-a"))
        // A refused attempt took no place: after the other one ends, the bound is whole again.
        yield* Scope.close(scopes[1]!, Exit.void)
        const again = yield* Effect.forEach(Array.from({ length: maxConcurrentDryRuns }), () => Scope.make())
        for (const scope of again) yield* Scope.provide(gate.enter("company-a"), scope)
        expect((yield* Effect.flip(Effect.scoped(gate.enter("company-a"))))._tag).toBe("RateLimited")
      })
  )
})

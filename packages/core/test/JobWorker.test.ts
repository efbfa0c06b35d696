import { expect, it } from "@effect/vitest"
import { Duration, Effect, Exit, Fiber, Layer, Option, Scope, TestClock } from "effect"
import type { CompanyId, ConnectionId } from "../src/Shared/Ids.js"
import { IdsLive } from "../src/Shared/Ids.js"
import { queued } from "../src/Jobs/Job.js"
import { type JobKindHandler, JobKinds } from "../src/Jobs/JobKinds.js"
import { JobStore } from "../src/Jobs/JobStore.js"
import { runWorkers } from "../src/Jobs/JobWorker.js"
import { InMemoryJobs } from "../src/testing.js"
import { uuid } from "./support.js"

/** The in-memory job store whose claims answer 1 ms after they took the job, as a database round trip does. */
const SlowClaims = Layer.effect(
  JobStore,
  Effect.map(JobStore, (store) =>
    JobStore.of({
      ...store,
      claim: (request) =>
        Effect.flatMap(store.claim(request), (claimed) => Effect.as(Effect.sleep("1 millis"), claimed))
    })
  )
).pipe(Layer.provideMerge(InMemoryJobs.layer))

/** Processing that never ends: the worker holds the job until it is stopped. */
const neverEnds: JobKindHandler = {
  process: () => Effect.never,
  counts: () => Effect.succeed(new Map()),
  report: () => Effect.succeed(null),
  retry: () => Effect.dieMessage("not in this test"),
  authorizeRetry: () => Effect.void
}
const Busy = Layer.succeed(JobKinds, { import: neverEnds, media: neverEnds })

it.effect("a worker stopped while its claim is in flight gives the job back at once, not after its lease", () =>
  Effect.gen(function* () {
    const jobs = yield* JobStore
    const principal = {
      company: { id: uuid() as CompanyId },
      connectionId: uuid() as ConnectionId,
      keyId: "k",
      scopes: new Set(["catalog:write"] as const)
    }
    const job = queued(principal, "import", uuid(), { millis: 0, at: "2026-01-01T00:00:00.000Z" }, null)
    yield* jobs.insert(job, 20)
    // Stopped before the claim's answer (0.5 ms), and again once the job was worked on (5 ms).
    for (const stopAfter of [Duration.micros(500n), Duration.millis(5)]) {
      const scope = yield* Scope.make()
      yield* runWorkers({ workers: 1, leaseMillis: 30_000, pollMillis: 1_000 }).pipe(Scope.extend(scope))
      yield* TestClock.adjust(stopAfter)
      // Stopping waits for the claim's answer (it cannot be cut short): let the clock run while it closes.
      const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
      yield* TestClock.adjust("10 millis")
      yield* Fiber.join(closing)
      const after = Option.getOrThrow(
        yield* jobs.get({ companyId: job.companyId, connectionId: job.connectionId }, job.id)
      )
      expect({ stopAfter: Duration.format(stopAfter), state: after.state, leaseOwner: after.leaseOwner }).toEqual({
        stopAfter: Duration.format(stopAfter),
        state: "queued",
        leaseOwner: null
      })
    }
  }).pipe(Effect.provide(Layer.mergeAll(SlowClaims, Busy, IdsLive)))
)

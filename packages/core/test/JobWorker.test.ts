import { expect, it } from "@effect/vitest"
import { Duration, Effect, Exit, Fiber, Layer, Option, Scope } from "effect"
import { TestClock } from "effect/testing"
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
  retry: () => Effect.die(new Error("not in this test")),
  authorizeRetry: () => Effect.void
}
const Busy = Layer.succeed(JobKinds, { import: neverEnds, media: neverEnds })

/** An import job of a new connection (of a new company unless given), queued in the store. */
const insertJob = (companyId = uuid() as CompanyId) =>
  Effect.gen(function* () {
    const principal = {
      company: { id: companyId },
      connectionId: uuid() as ConnectionId,
      keyId: "k",
      scopes: new Set(["catalog:write"] as const)
    }
    const job = queued(principal, "import", uuid(), { millis: 0, at: "2026-01-01T00:00:00.000Z" }, null)
    yield* (yield* JobStore).insert(job, 20)
    return job
  })
const insertedJob = insertJob()

it.effect("a worker stopped while its claim is in flight gives the job back at once, not after its lease", () =>
  Effect.gen(function* () {
    const jobs = yield* JobStore
    const job = yield* insertedJob
    // Stopped before the claim's answer (0.5 ms), and again once the job was worked on (5 ms).
    for (const stopAfter of [Duration.micros(500n), Duration.millis(5)]) {
      const scope = yield* Scope.make()
      yield* runWorkers({ workers: 1, leaseMillis: 30_000, pollMillis: 1_000 }).pipe(Scope.provide(scope))
      yield* TestClock.adjust(stopAfter)
      // Stopping waits for the claim's answer (it cannot be cut short): let the clock run while it closes.
      const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void))
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

/** The in-memory job store, counting the heartbeats it is sent. */
const beats: Array<number> = []
const CountedBeats = Layer.effect(
  JobStore,
  Effect.map(JobStore, (store) =>
    JobStore.of({
      ...store,
      heartbeat: (id, workerId, leaseUntil) => {
        beats.push(leaseUntil)
        return store.heartbeat(id, workerId, leaseUntil)
      }
    })
  )
).pipe(Layer.provideMerge(InMemoryJobs.layer))

it.effect("a job outlives its lease by heartbeats a third of a lease apart, the first a third after the claim", () =>
  Effect.gen(function* () {
    beats.length = 0
    const jobs = yield* JobStore
    const job = yield* insertedJob
    yield* runWorkers({ workers: 1, leaseMillis: 3_000, pollMillis: 1_000 })
    const current = Effect.map(
      jobs.get({ companyId: job.companyId, connectionId: job.connectionId }, job.id),
      Option.getOrThrow
    )
    yield* TestClock.adjust("900 millis")
    // Claimed (the claim set the lease), and not renewed yet: a job that ends sooner spends no heartbeat.
    expect({ state: (yield* current).state, beats: beats.length }).toEqual({ state: "running", beats: 0 })
    yield* TestClock.adjust("200 millis")
    expect(beats).toEqual([4_000])
    // Far past the claim's lease, the job is still the worker's, its lease always ahead of the clock.
    yield* TestClock.adjust("10 seconds")
    const later = yield* current
    expect({ state: later.state, owned: later.leaseOwner !== null, beats: beats.length }).toEqual({
      state: "running",
      owned: true,
      beats: 11
    })
    expect(later.leaseUntil).toBeGreaterThan(11_100)
  }).pipe(Effect.provide(Layer.mergeAll(CountedBeats, Busy, IdsLive)))
)

/** Processing that ends the job at once, noting which job ran. */
const ran: Array<string> = []
const EndsAtOnce = Layer.effect(
  JobKinds,
  Effect.map(JobStore, (jobs) => {
    const endsAtOnce: JobKindHandler = {
      ...neverEnds,
      process: (job, workerId) => {
        ran.push(job.id)
        return Effect.asVoid(jobs.finish(job.id, workerId, { state: "completed", failure: null, at: "done" }))
      }
    }
    return { import: endsAtOnce, media: endsAtOnce }
  })
).pipe(Layer.provideMerge(InMemoryJobs.layer))

it.effect("a single worker takes turns between companies instead of running one company's backlog first", () =>
  Effect.gen(function* () {
    ran.length = 0
    const [a, b] = [uuid() as CompanyId, uuid() as CompanyId]
    // Company a queued three imports (one connection each) before company b queued two.
    const queue = []
    for (const company of [a, a, a, b, b]) queue.push((yield* insertJob(company)).id)
    const [a1, a2, a3, b1, b2] = queue
    yield* runWorkers({ workers: 1, leaseMillis: 30_000, pollMillis: 1_000 })
    yield* TestClock.adjust("1 second")
    // Effect 4's TestClock.adjust lets a forked fiber run for a scheduler turn, not until it suspends as
    // Effect 3's did: give the worker the turns it takes to empty the queue.
    for (let turn = 0; turn < 1_000 && ran.length < queue.length; turn++) yield* Effect.yieldNow
    expect(ran).toEqual([a1, b1, a2, b2, a3])
  }).pipe(Effect.provide(Layer.mergeAll(EndsAtOnce, IdsLive)))
)

import { expect, layer } from "@effect/vitest"
import { Deferred, Duration, Effect, Exit, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { PersistenceError } from "../src/Shared/Errors.js"
import { CatalogService } from "../src/Catalog/CatalogService.js"
import { ClaimLease, runIdempotent } from "../src/Idempotency/Idempotency.js"
import { IdempotencyStore } from "../src/Idempotency/IdempotencyStore.js"
import * as InMemoryRateLimiter from "../src/RateLimit/InMemoryRateLimiter.js"
import { checkRate, perKeyPerMinute } from "../src/RateLimit/RateLimiter.js"
import { InMemory } from "../src/testing.js"
import { as, list as listCatalog, principal, TestLayer, upsert } from "./support.js"

const Live = Layer.mergeAll(TestLayer, InMemory.idempotencyLayer, InMemoryRateLimiter.layer)

const createCategory = (name: string) =>
  upsert("categories", { external_id: "c", name }).pipe(Effect.map((r) => ({ status: 200, body: r })))

layer(Live)("idempotency", (it) => {
  it.effect("a repeat with the same request replays the stored response without writing again", () =>
    Effect.gen(function* () {
      const first = yield* runIdempotent("key-00001", "POST /categories/upsert #1", createCategory("A"))
      const again = yield* runIdempotent("key-00001", "POST /categories/upsert #1", createCategory("A"))
      expect(first.replayed).toBe(false)
      expect(again).toEqual({ response: first.response, replayed: true })
      const other = yield* Effect.flip(runIdempotent("key-00001", "POST /categories/upsert #2", createCategory("B")))
      expect(other).toMatchObject({ _tag: "IdempotencyConflict", code: "idempotency_key_reused" })
    }).pipe(as(principal()))
  )

  it.effect("keys are scoped to the connection", () =>
    Effect.gen(function* () {
      const a = principal()
      const b = principal(a.company)
      yield* runIdempotent(
        "key-00002",
        "fp",
        upsert("categories", { external_id: "a", name: "A" }).pipe(Effect.as({ status: 200, body: 1 }))
      ).pipe(as(a))
      const second = yield* runIdempotent(
        "key-00002",
        "fp",
        upsert("categories", { external_id: "b", name: "B" }).pipe(Effect.as({ status: 200, body: 2 }))
      ).pipe(as(b))
      expect(second).toEqual({ response: { status: 200, body: 2 }, replayed: false })
    })
  )

  it.effect("a second request while the first runs is refused; a failed one releases the key", () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      const slow = Deferred.succeed(started, undefined).pipe(
        Effect.andThen(Deferred.await(gate)),
        Effect.as({ status: 200, body: "slow" })
      )
      const fiber = yield* Effect.forkChild(runIdempotent("key-00003", "fp", slow))
      yield* Deferred.await(started)
      const busy = yield* Effect.flip(runIdempotent("key-00003", "fp", Effect.succeed({ status: 200, body: "fast" })))
      expect(busy).toMatchObject({ code: "idempotency_in_progress" })
      yield* Deferred.succeed(gate, undefined)
      expect((yield* Fiber.join(fiber)).response.body).toBe("slow")

      const failed = yield* Effect.flip(runIdempotent("key-00004", "fp", Effect.fail("boom" as const)))
      expect(failed).toBe("boom")
      const retried = yield* runIdempotent("key-00004", "fp", Effect.succeed({ status: 200, body: "ok" }))
      expect(retried).toEqual({ response: { status: 200, body: "ok" }, replayed: false })
    }).pipe(as(principal()))
  )

  it.effect("a request that outlives its lease and loses the key to a retry rolls back: the operation runs once", () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      const slow = createCategory("First").pipe(
        Effect.tap(() => Deferred.succeed(started, undefined)),
        Effect.tap(() => Deferred.await(gate))
      )
      const first = yield* Effect.forkChild(runIdempotent("key-00006", "fp", slow))
      yield* Deferred.await(started)
      yield* TestClock.adjust("61 seconds")
      // The retry takes the expired claim over; its write waits for the first's transaction.
      const retry = yield* Effect.forkChild(runIdempotent("key-00006", "fp", createCategory("Second")))
      yield* Effect.yieldNow
      yield* Deferred.succeed(gate, undefined)
      const lost = yield* Effect.flip(Fiber.join(first))
      expect(lost).toMatchObject({ code: "idempotency_in_progress" })
      const won = yield* Fiber.join(retry)
      expect(won).toMatchObject({
        replayed: false,
        response: { body: { outcome: "created", record: { name: "Second", revision: 1 } } }
      })
      const list = yield* listCatalog("categories", { limit: 10 })
      expect(list.records.map((r) => r.name)).toEqual(["Second"])
      expect(yield* runIdempotent("key-00006", "fp", createCategory("Third"))).toEqual({
        response: won.response,
        replayed: true
      })
    }).pipe(as(principal()))
  )

  it.effect("the lease is ClaimLease: a retry is refused within it and takes the key over after it", () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      const hung = Deferred.succeed(started, undefined).pipe(
        Effect.andThen(Deferred.await(gate)),
        Effect.as({ status: 200, body: "hung" })
      )
      const first = yield* Effect.forkChild(runIdempotent("key-00009", "fp", hung))
      yield* Deferred.await(started)
      yield* TestClock.adjust("4 seconds")
      expect(
        yield* Effect.flip(runIdempotent("key-00009", "fp", Effect.succeed({ status: 200, body: "early" })))
      ).toMatchObject({ code: "idempotency_in_progress" })
      yield* TestClock.adjust("2 seconds")
      // Past the 5 s lease the retry takes the key; its write waits for the first's transaction, which then loses.
      const retry = yield* Effect.forkChild(
        runIdempotent("key-00009", "fp", Effect.succeed({ status: 200, body: "retry" }))
      )
      yield* Effect.yieldNow
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Effect.flip(Fiber.join(first))).toMatchObject({ code: "idempotency_in_progress" })
      expect(yield* Fiber.join(retry)).toEqual({ response: { status: 200, body: "retry" }, replayed: false })
    }).pipe(as(principal()), Effect.provideService(ClaimLease, Duration.seconds(5)))
  )

  it.effect("a failed write inside the idempotent transaction leaves nothing behind", () =>
    Effect.gen(function* () {
      const write = Effect.flatMap(CatalogService, (s) => s.upsert("categories", { external_id: "z", name: "Z" })).pipe(
        Effect.andThen(Effect.fail("late failure" as const))
      )
      yield* Effect.flip(runIdempotent("key-00005", "fp", write))
      const list = yield* listCatalog("categories", { limit: 10 })
      expect(list.records).toEqual([])
    }).pipe(as(principal()))
  )
})

/** Where the request under test got to: each step is logged when it takes effect. */
const reached: Array<string> = []

/**
 * The in-memory store as a database over a network: a statement takes effect when it is sent and its
 * answer arrives 1 ms later, so a request interrupted in between holds a claim it never heard of.
 * `complete` commits with the write's transaction (an interrupted one rolls back), so its delay comes first.
 */
const RemoteStore = Layer.effect(
  IdempotencyStore,
  Effect.map(IdempotencyStore, (store) =>
    IdempotencyStore.of({
      ...store,
      claim: (request) =>
        store.claim(request).pipe(
          Effect.tap((claim) => Effect.sync(() => reached.push(`claim ${claim._tag} sent`))),
          Effect.tap(Effect.sleep("1 millis")),
          Effect.tap(() => Effect.sync(() => reached.push("claim answered")))
        ),
      complete: (...args) =>
        Effect.sleep("1 millis").pipe(
          Effect.andThen(store.complete(...args)),
          Effect.tap(() => Effect.sync(() => reached.push("completed")))
        ),
      release: (...args) =>
        store.release(...args).pipe(
          Effect.tap(() => Effect.sync(() => reached.push("released"))),
          Effect.tap(Effect.sleep("1 millis"))
        )
    })
  )
).pipe(Layer.provide(InMemory.idempotencyLayer))

layer(Layer.mergeAll(TestLayer, RemoteStore))("idempotency over a store that answers late", (it) => {
  it.effect(
    "a request interrupted at any step leaves no running claim: its retry runs or replays at once, and the write happens once",
    () =>
      Effect.gen(function* () {
        const landed: Array<string> = []
        // The first request's steps come 1 ms apart: claim sent, claim answered (the write begins), record
        // written (the completion is sent), completed. It is interrupted before it starts, then after 0-3 ms.
        for (const at of [undefined, 0, 1, 2, 3]) {
          const externalId = `step-${at}`
          const write = (name: string) =>
            Effect.sleep("1 millis").pipe(
              Effect.andThen(upsert("categories", { external_id: externalId, name })),
              Effect.tap(() => Effect.sync(() => reached.push("written"))),
              Effect.map((body) => ({ status: 200, body }))
            )
          reached.length = 0
          const first = yield* Effect.forkChild(runIdempotent(`key-step-${at}`, "fp", write("first")))
          if (at !== undefined) {
            yield* Effect.yieldNow
            yield* TestClock.adjust(Duration.millis(at))
          }
          const before = [...reached]
          // The client goes away (the signal lands at once, even before the request has started); the
          // steps that cannot be cut short run to their end.
          first.interruptUnsafe(yield* Effect.fiberId)
          yield* TestClock.adjust("1 second")
          const firstExit = yield* Fiber.await(first)
          landed.push(
            `${Exit.hasInterrupts(firstExit) ? "interrupted" : "finished"} after [${before.join(", ")}], then [${reached.slice(before.length).join(", ")}]`
          )

          // The retry comes at once, far within the 60 s lease.
          const retry = yield* Effect.forkChild(runIdempotent(`key-step-${at}`, "fp", write("retry")))
          yield* TestClock.adjust("1 second")
          const settled = yield* Fiber.join(retry).pipe(
            Effect.catch((error) =>
              Effect.die(new Error(`the first request ${landed.at(-1)}; its retry failed: ${JSON.stringify(error)}`))
            )
          )
          const records = (yield* listCatalog("categories", { limit: 10, externalId })).records
          expect(
            records.map((r) => r.name),
            landed.at(-1)
          ).toEqual([settled.replayed ? "first" : "retry"])
          expect(settled.replayed, landed.at(-1)).toBe(Exit.isSuccess(firstExit))
        }
        expect(landed).toEqual([
          "interrupted after [], then []",
          // The claim is in the store but the request never heard of it: the claim's step runs to its end.
          "interrupted after [claim Started sent], then [claim answered, released]",
          "interrupted after [claim Started sent, claim answered], then [released]",
          "interrupted after [claim Started sent, claim answered, written], then [released]",
          "finished after [claim Started sent, claim answered, written, completed], then []"
        ])
      }).pipe(as(principal()))
  )
})

/** The in-memory store whose next release fails once, as on a connection that just dropped; the pool's next connection works. */
let failNextRelease = false
const DroppingStore = Layer.effect(
  IdempotencyStore,
  Effect.map(IdempotencyStore, (store) =>
    IdempotencyStore.of({
      ...store,
      release: (...args) =>
        Effect.suspend(() => {
          if (!failNextRelease) return store.release(...args)
          failNextRelease = false
          return Effect.fail(new PersistenceError({ message: "connection terminated", retryable: true }))
        })
    })
  )
).pipe(Layer.provide(InMemory.idempotencyLayer))

layer(Layer.mergeAll(TestLayer, DroppingStore))("idempotency when a release fails", (it) => {
  it.effect("a release that fails on a dropped connection is tried again: the key is free for the retry", () =>
    Effect.gen(function* () {
      failNextRelease = true
      const failed = yield* Effect.forkChild(runIdempotent("key-drop-1", "fp", Effect.fail("write failed" as const)))
      yield* TestClock.adjust("1 second")
      expect(yield* Effect.flip(Fiber.join(failed))).toBe("write failed")
      expect(failNextRelease).toBe(false)
      expect(yield* runIdempotent("key-drop-1", "fp", Effect.succeed({ status: 200, body: "retry" }))).toEqual({
        response: { status: 200, body: "retry" },
        replayed: false
      })
    }).pipe(as(principal()))
  )
})

layer(Live)("rate limits", (it) => {
  it.effect("120 requests per key per minute, then a retry-after; the window resets", () =>
    Effect.gen(function* () {
      const who = principal()
      let last = yield* checkRate.pipe(as(who))
      expect(last).toMatchObject({ allowed: true, limit: perKeyPerMinute, remaining: perKeyPerMinute - 1 })
      for (let i = 1; i < perKeyPerMinute; i++) last = yield* checkRate.pipe(as(who))
      expect(last).toMatchObject({ allowed: true, remaining: 0 })
      const refused = yield* checkRate.pipe(as(who))
      expect(refused).toMatchObject({ allowed: false, remaining: 0 })
      expect(refused.resetSeconds).toBeGreaterThanOrEqual(1)
      yield* TestClock.adjust("60 seconds")
      expect((yield* checkRate.pipe(as(who))).allowed).toBe(true)
    })
  )

  it.effect("600 per company per minute across its keys", () =>
    Effect.gen(function* () {
      const first = principal()
      const keys = Array.from({ length: 6 }, () => principal(first.company))
      for (const key of keys.slice(0, 5)) for (let i = 0; i < 120; i++) yield* checkRate.pipe(as(key))
      const refused = yield* checkRate.pipe(as(keys[5]!))
      expect(refused).toMatchObject({ allowed: false, limit: 600 })
      const otherCompany = yield* checkRate.pipe(as(principal()))
      expect(otherCompany.allowed).toBe(true)
    })
  )
})

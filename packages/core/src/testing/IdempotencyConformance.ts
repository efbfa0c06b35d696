import { expect, layer } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { type ClaimRequest, type IdempotencyScope, IdempotencyStore } from "../Idempotency/IdempotencyStore.js"
import type { CompanyId, ConnectionId } from "../Shared/Ids.js"

const uuid = () => globalThis.crypto.randomUUID()
const scope = (): IdempotencyScope => ({ companyId: uuid() as CompanyId, connectionId: uuid() as ConnectionId })

const T = 1_750_000_000_000
const lease = 60_000
const retention = 48 * 3_600_000

const request = (s: IdempotencyScope, key: string, overrides: Partial<ClaimRequest> = {}): ClaimRequest => ({
  scope: s,
  key,
  fingerprint: "POST /v1/categories/upsert 9f86d081",
  nowMillis: T,
  leaseMillis: lease,
  retentionMillis: retention,
  ...overrides
})

const claims = (tags: ReadonlyArray<{ readonly _tag: string }>) => tags.map((claim) => claim._tag)

const started = { _tag: "Started", token: expect.any(Number) }

/** Claims a key that must start, and returns the claim's token. */
const start = (idempotency: IdempotencyStore["Service"], claim: ClaimRequest) =>
  Effect.map(idempotency.claim(claim), (result) => {
    if (result._tag !== "Started") throw new Error(`expected the claim to start, got ${result._tag}`)
    return result.token
  })

/**
 * The contract of the `IdempotencyStore` port, run by each adapter against its own layer. Each test works
 * in fresh scopes; the purge test alone uses times in the first second after the epoch, so the layer must
 * hold no other records that old.
 */
export const runIdempotencyConformance = (name: string, store: Layer.Layer<IdempotencyStore, unknown>) =>
  layer(store, { timeout: 60_000 })(`IdempotencyStore conformance: ${name}`, (it) => {
    it.effect("starts a new key, replays it once completed and refuses another fingerprint", () =>
      Effect.gen(function* () {
        const idempotency = yield* IdempotencyStore
        const s = scope()
        const response = { status: 201, body: { data: { id: uuid(), name: "Sofás" }, list: [1, null, "x"], ok: true } }
        const token = yield* start(idempotency, request(s, "key-0001"))
        expect(yield* idempotency.claim(request(s, "key-0001", { nowMillis: T + 1 }))).toEqual({ _tag: "InProgress" })
        expect(yield* idempotency.complete(s, "key-0001", token, response, T + 2)).toBe(true)
        expect(yield* idempotency.claim(request(s, "key-0001", { nowMillis: T + 3 }))).toEqual({
          _tag: "Replay",
          response
        })
        expect(yield* idempotency.claim(request(s, "key-0001", { nowMillis: T + 4, fingerprint: "other" }))).toEqual({
          _tag: "Mismatch"
        })
        // Still replayable long after its lease, within the retention.
        expect(yield* idempotency.claim(request(s, "key-0001", { nowMillis: T + retention - 1 }))).toEqual({
          _tag: "Replay",
          response
        })

        const bodyless = { status: 204, body: null }
        yield* idempotency.complete(s, "key-0002", yield* start(idempotency, request(s, "key-0002")), bodyless, T)
        expect(yield* idempotency.claim(request(s, "key-0002"))).toEqual({ _tag: "Replay", response: bodyless })
      })
    )

    it.effect("scopes keys by company and connection", () =>
      Effect.gen(function* () {
        const idempotency = yield* IdempotencyStore
        const s = scope()
        yield* idempotency.complete(
          s,
          "key-0001",
          yield* start(idempotency, request(s, "key-0001")),
          { status: 200, body: "first" },
          T
        )
        const otherConnection = { ...s, connectionId: uuid() as ConnectionId }
        const otherCompany = { ...s, companyId: uuid() as CompanyId }
        expect(yield* idempotency.claim(request(otherConnection, "key-0001", { fingerprint: "other" }))).toEqual(
          started
        )
        yield* idempotency.release(
          otherCompany,
          "key-0001",
          yield* start(idempotency, request(otherCompany, "key-0001"))
        )
        expect(yield* idempotency.claim(request(s, "key-0001"))).toEqual({
          _tag: "Replay",
          response: { status: 200, body: "first" }
        })
      })
    )

    it.effect("a running claim holds for its lease; after it, the key is taken over", () =>
      Effect.gen(function* () {
        const idempotency = yield* IdempotencyStore
        const s = scope()
        const first = yield* start(idempotency, request(s, "key-0001"))
        expect(yield* idempotency.claim(request(s, "key-0001", { nowMillis: T + lease - 1 }))).toEqual({
          _tag: "InProgress"
        })
        expect(yield* idempotency.claim(request(s, "key-0001", { nowMillis: T + 1, fingerprint: "other" }))).toEqual({
          _tag: "Mismatch"
        })
        const taker = yield* start(idempotency, request(s, "key-0001", { nowMillis: T + lease }))
        expect(taker).not.toBe(first)
        // The taker holds a fresh lease.
        expect(yield* idempotency.claim(request(s, "key-0001", { nowMillis: T + lease + 1 }))).toEqual({
          _tag: "InProgress"
        })
        expect(yield* idempotency.claim(request(s, "key-0001", { nowMillis: T + 2 * lease - 1 }))).toEqual({
          _tag: "InProgress"
        })
        // The first request outlived its lease: it can neither complete nor release the taker's claim.
        expect(yield* idempotency.complete(s, "key-0001", first, { status: 200, body: "late" }, T + lease + 4)).toBe(
          false
        )
        yield* idempotency.release(s, "key-0001", first)
        expect(yield* idempotency.claim(request(s, "key-0001", { nowMillis: T + lease + 4 }))).toEqual({
          _tag: "InProgress"
        })
        expect(yield* idempotency.complete(s, "key-0001", taker, { status: 200, body: "taker" }, T + lease + 5)).toBe(
          true
        )
        expect(yield* idempotency.complete(s, "key-0001", taker, { status: 200, body: "again" }, T + lease + 6)).toBe(
          false
        )
        expect(yield* idempotency.claim(request(s, "key-0001", { nowMillis: T + 3 * lease }))).toEqual({
          _tag: "Replay",
          response: { status: 200, body: "taker" }
        })
      })
    )

    it.effect("forgets a completed key after the retention, whatever its fingerprint", () =>
      Effect.gen(function* () {
        const idempotency = yield* IdempotencyStore
        const s = scope()
        yield* idempotency.complete(
          s,
          "key-0001",
          yield* start(idempotency, request(s, "key-0001")),
          { status: 200, body: 1 },
          T + 10
        )
        // Retention counts from the claim.
        expect(
          yield* idempotency.claim(request(s, "key-0001", { nowMillis: T + retention, fingerprint: "other" }))
        ).toEqual(started)
        expect(
          yield* idempotency.claim(request(s, "key-0001", { nowMillis: T + retention + 1, fingerprint: "other" }))
        ).toEqual({
          _tag: "InProgress"
        })
        expect(yield* idempotency.claim(request(s, "key-0001", { nowMillis: T + retention + 2 }))).toEqual({
          _tag: "Mismatch"
        })
      })
    )

    it.effect("release drops a running claim so that a retry starts again, but keeps a completed one", () =>
      Effect.gen(function* () {
        const idempotency = yield* IdempotencyStore
        const s = scope()
        yield* idempotency.release(s, "key-0001", yield* start(idempotency, request(s, "key-0001")))
        const retry = yield* start(idempotency, request(s, "key-0001", { fingerprint: "retry" }))
        yield* idempotency.complete(s, "key-0001", retry, { status: 201, body: "done" }, T)
        yield* idempotency.release(s, "key-0001", retry)
        expect(yield* idempotency.claim(request(s, "key-0001", { fingerprint: "retry" }))).toEqual({
          _tag: "Replay",
          response: { status: 201, body: "done" }
        })
        // Releasing an unknown key is a no-op.
        yield* idempotency.release(s, "key-unknown", T)
      })
    )

    it.effect(
      "releaseAll drops every running claim, so that their retries start at once; completed keys still replay",
      () =>
        Effect.gen(function* () {
          const idempotency = yield* IdempotencyStore
          const [a, b] = [scope(), scope()]
          const cut = yield* start(idempotency, request(a, "key-0001"))
          const done = yield* start(idempotency, request(b, "key-0001"))
          expect(yield* idempotency.complete(b, "key-0001", done, { status: 200, body: "kept" }, T)).toBe(true)
          expect(yield* idempotency.claim(request(a, "key-0001", { nowMillis: T + 1 }))).toEqual({ _tag: "InProgress" })
          expect(yield* idempotency.releaseAll).toBeGreaterThanOrEqual(1)
          expect(yield* idempotency.claim(request(a, "key-0001", { nowMillis: T + 1 }))).toEqual(started)
          // The cut-off request's token is gone: it could not complete now.
          expect(yield* idempotency.complete(a, "key-0001", cut, { status: 200, body: "late" }, T)).toBe(false)
          expect(yield* idempotency.claim(request(b, "key-0001", { nowMillis: T + 1 }))).toEqual({
            _tag: "Replay",
            response: { status: 200, body: "kept" }
          })
        })
    )

    it.effect(
      "purge deletes completed records and abandoned running claims older than the cutoff, and counts them",
      () =>
        Effect.gen(function* () {
          const idempotency = yield* IdempotencyStore
          const s = scope()
          const old = { leaseMillis: 1_000_000, retentionMillis: 1_000_000 }
          const done = { status: 200, body: "done" }
          for (const [key, at, complete] of [
            ["old-done-1", 100, true],
            ["old-done-2", 200, true],
            ["old-running", 300, false],
            ["new-done", 900, true]
          ] as const) {
            const token = yield* start(idempotency, request(s, key, { ...old, nowMillis: at }))
            if (complete) yield* idempotency.complete(s, key, token, done, at)
          }
          // An abandoned claim: its lease (10 ms) ended long before the cutoff.
          yield* start(
            idempotency,
            request(s, "dead-running", { leaseMillis: 10, retentionMillis: 1_000_000, nowMillis: 50 })
          )
          expect(yield* idempotency.purge(500)).toBe(3)
          expect(yield* idempotency.purge(500)).toBe(0)
          expect(
            yield* idempotency.claim(request(s, "dead-running", { ...old, nowMillis: 1_000, fingerprint: "other" }))
          ).toEqual(started)
          const later = { ...old, nowMillis: 1_000 }
          expect(yield* idempotency.claim(request(s, "old-done-1", { ...later, fingerprint: "other" }))).toEqual(
            started
          )
          expect(yield* idempotency.claim(request(s, "old-done-2", later))).toEqual(started)
          expect(yield* idempotency.claim(request(s, "old-running", later))).toEqual({ _tag: "InProgress" })
          expect(yield* idempotency.claim(request(s, "new-done", later))).toEqual({ _tag: "Replay", response: done })
        })
    )

    it.effect("of 20 concurrent claims of one key exactly one starts", () =>
      Effect.gen(function* () {
        const idempotency = yield* IdempotencyStore
        const s = scope()
        const results = yield* Effect.all(
          Array.from({ length: 20 }, () => idempotency.claim(request(s, "key-0001"))),
          { concurrency: "unbounded" }
        )
        expect(claims(results).sort()).toEqual(["Started", ...Array.from({ length: 19 }, () => "InProgress")].sort())
      })
    )

    it.effect("of 20 concurrent takeovers of an expired claim exactly one starts", () =>
      Effect.gen(function* () {
        const idempotency = yield* IdempotencyStore
        const s = scope()
        yield* idempotency.claim(request(s, "key-0001"))
        const results = yield* Effect.all(
          Array.from({ length: 20 }, () => idempotency.claim(request(s, "key-0001", { nowMillis: T + lease + 1 }))),
          { concurrency: "unbounded" }
        )
        expect(claims(results).sort()).toEqual(["Started", ...Array.from({ length: 19 }, () => "InProgress")].sort())
      })
    )
  })

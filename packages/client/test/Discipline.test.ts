import { describe, expect, it } from "@effect/vitest"
import { HttpClient, HttpClientError, type HttpClientRequest, HttpClientResponse } from "effect/http"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { CatalogSyncClient } from "../src/index.js"

const requestId = "0190a5a4-7b4e-7cc2-8d7e-2b1c8f3a9d01"
const category = {
  id: "0190a5a4-7b4e-7cc2-8d7e-2b1c8f3a9d02",
  external_id: "sofas",
  revision: 1,
  translations: {},
  created_at: "2025-01-01T00:00:00.000Z",
  updated_at: "2025-01-01T00:00:00.000Z",
  name: "Sofas",
  parent_id: null,
  description: null,
  image_id: null
}

type Answer =
  | {
      readonly status: number
      readonly body?: unknown
      readonly headers?: Record<string, string>
      readonly text?: string
    }
  | "network"

/** A transport that answers from a script and records what it was sent. */
const scripted = (answers: ReadonlyArray<Answer>) => {
  const seen: Array<HttpClientRequest.HttpClientRequest> = []
  const client = HttpClient.make((request) =>
    Effect.suspend(() => {
      const answer = answers[Math.min(seen.length, answers.length - 1)]!
      seen.push(request)
      if (answer === "network") {
        return Effect.fail(
          new HttpClientError.HttpClientError({
            reason: new HttpClientError.TransportError({ request, cause: new Error("ECONNRESET") })
          })
        )
      }
      const body = answer.text ?? JSON.stringify(answer.body)
      const contentType = answer.text === undefined ? "application/json" : "text/html"
      return Effect.succeed(
        HttpClientResponse.fromWeb(
          request,
          new Response(body, { status: answer.status, headers: { "content-type": contentType, ...answer.headers } })
        )
      )
    })
  )
  return { client, seen }
}

const options = { baseUrl: "http://api.test", apiKey: "csk_k_secret", appName: "test-sync", appVersion: "1.0.0" }

const withClient = (answers: ReadonlyArray<Answer>, extra: Partial<CatalogSyncClient.ClientOptions> = {}) => {
  const { client, seen } = scripted(answers)
  return Effect.map(
    Effect.provideService(CatalogSyncClient.make({ ...options, ...extra }), HttpClient.HttpClient, client),
    (c) => ({ c, seen })
  )
}

const error = (status: number, code: string, extra: Record<string, unknown> = {}) => ({
  status,
  body: { request_id: requestId, error: { code, message: code, ...extra } }
})
const written = { status: 200, body: { request_id: requestId, outcome: "created", record: category } }

describe("client discipline", () => {
  it.effect("sends the key and <APP_NAME>/<VERSION>; retries a 503 with the same Idempotency-Key", () =>
    Effect.gen(function* () {
      const { c, seen } = yield* withClient([error(503, "service_unavailable"), "network", written])
      const fiber = yield* Effect.forkChild(c.upsert("categories", { external_id: "sofas", name: "Sofas" }))
      yield* TestClock.adjust("30 seconds")
      const result = yield* Fiber.join(fiber)
      expect(result.outcome).toBe("created")
      expect(result.record.name).toBe("Sofas")
      expect(seen).toHaveLength(3)
      const keys = seen.map((r) => r.headers["idempotency-key"])
      expect(new Set(keys).size).toBe(1)
      expect(keys[0]).toMatch(/^[A-Za-z0-9._:-]{8,120}$/)
      expect(seen[0]!.headers["authorization"]).toBe("Bearer csk_k_secret")
      expect(seen[0]!.headers["user-agent"]).toBe("test-sync/1.0.0")
      expect(seen[0]!.url).toBe("http://api.test/api/v1/categories/upsert")
    })
  )

  it.effect("each logical write gets a fresh Idempotency-Key", () =>
    Effect.gen(function* () {
      const { c, seen } = yield* withClient([written])
      yield* c.upsert("categories", { external_id: "a", name: "A" })
      yield* c.upsert("categories", { external_id: "a", name: "A" })
      yield* c.upsert("categories", { external_id: "a", name: "A" }, { idempotencyKey: "my-own-key-1" })
      expect(seen.map((r) => r.headers["idempotency-key"])[2]).toBe("my-own-key-1")
      expect(seen[0]!.headers["idempotency-key"]).not.toBe(seen[1]!.headers["idempotency-key"])
    })
  )

  it.effect("honours Retry-After on 429", () =>
    Effect.gen(function* () {
      const { c, seen } = yield* withClient([
        { ...error(429, "rate_limited", { retry_after: 7 }), headers: { "retry-after": "7" } },
        { status: 200, body: { request_id: requestId, status: "ok" } }
      ])
      const fiber = yield* Effect.forkChild(c.health)
      yield* TestClock.adjust("6 seconds")
      expect(seen).toHaveLength(1)
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(fiber)
      expect(seen).toHaveLength(2)
    })
  )

  it.effect(
    "retries 409 idempotency_in_progress with the same key (the first request still holds it); other 409s are final",
    () =>
      Effect.gen(function* () {
        const { c, seen } = yield* withClient([
          error(409, "idempotency_in_progress"),
          error(409, "idempotency_in_progress"),
          written
        ])
        const fiber = yield* Effect.forkChild(c.upsert("categories", { external_id: "sofas", name: "Sofas" }))
        yield* TestClock.adjust("30 seconds")
        expect((yield* Fiber.join(fiber)).outcome).toBe("created")
        expect(seen).toHaveLength(3)
        expect(new Set(seen.map((r) => r.headers["idempotency-key"])).size).toBe(1)

        const reused = yield* withClient([error(409, "idempotency_key_reused"), written])
        expect(yield* Effect.flip(reused.c.upsert("categories", { external_id: "a", name: "A" }))).toMatchObject({
          code: "idempotency_key_reused",
          status: 409
        })
        expect(reused.seen).toHaveLength(1)
      })
  )

  it.effect("never retries another 4xx; errors are tagged by code", () =>
    Effect.gen(function* () {
      const { c, seen } = yield* withClient([
        error(409, "revision_conflict", { details: { current_revision: 4, expected_revision: 2 } })
      ])
      const conflict = yield* Effect.flip(c.upsert("categories", { external_id: "a", expected_revision: 2, name: "A" }))
      expect(conflict._tag).toBe("RevisionConflict")
      expect(conflict).toMatchObject({
        code: "revision_conflict",
        current_revision: 4,
        status: 409,
        request_id: requestId
      })
      expect(seen).toHaveLength(1)

      const other = yield* withClient([
        error(422, "validation_failed", { details: [{ path: "$.name", message: "x" }] })
      ])
      const invalid = yield* Effect.flip(other.c.upsert("categories", { external_id: "a", name: "A" }))
      expect(invalid).toMatchObject({ _tag: "CatalogSyncError", code: "validation_failed", status: 422 })
      expect(other.seen).toHaveLength(1)

      // The contract's strict body schema runs in the client too: nothing is sent.
      const local = yield* Effect.flip(
        other.c.upsert("categories", { external_id: "a", name: "A", colour: "red" } as never)
      )
      expect(local._tag).toBe("InvalidRequest")
      expect(other.seen).toHaveLength(1)

      const unauthorized = yield* withClient([error(401, "invalid_credentials")])
      expect(yield* Effect.flip(unauthorized.c.me)).toMatchObject({
        _tag: "CatalogSyncError",
        code: "invalid_credentials",
        status: 401
      })
    })
  )

  it.effect("gives up after maxAttempts with the last answer; a non-JSON 403 is an UnexpectedResponse", () =>
    Effect.gen(function* () {
      const { c, seen } = yield* withClient([error(500, "internal_error")], { retry: { maxAttempts: 3 } })
      const fiber = yield* Effect.forkChild(Effect.flip(c.health))
      yield* TestClock.adjust("1 minute")
      expect(yield* Fiber.join(fiber)).toMatchObject({ _tag: "CatalogSyncError", code: "internal_error", status: 500 })
      expect(seen).toHaveLength(3)

      const waf = yield* withClient([{ status: 403, text: "<html>blocked</html>" }])
      const blocked = yield* Effect.flip(waf.c.health)
      expect(blocked).toMatchObject({ _tag: "UnexpectedResponse", status: 403 })
    })
  )

  it.effect("network errors are retried, then reported as NetworkError", () =>
    Effect.gen(function* () {
      const { c, seen } = yield* withClient(["network"], { retry: { maxAttempts: 2 } })
      const fiber = yield* Effect.forkChild(Effect.flip(c.health))
      yield* TestClock.adjust("1 minute")
      expect((yield* Fiber.join(fiber))._tag).toBe("NetworkError")
      expect(seen).toHaveLength(2)
    })
  )

  it.effect("paces requests when the RateLimit budget runs out", () =>
    Effect.gen(function* () {
      const ok = {
        status: 200,
        body: { request_id: requestId, status: "ok" },
        headers: { "ratelimit-remaining": "0", "ratelimit-reset": "10" }
      }
      const { c, seen } = yield* withClient([ok])
      yield* c.health
      const fiber = yield* Effect.forkChild(c.health)
      yield* TestClock.adjust("9 seconds")
      expect(seen).toHaveLength(1)
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(fiber)
      expect(seen).toHaveLength(2)
    })
  )
})

import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { HttpServerRequest } from "effect/http"
import fc from "fast-check"
import { failingPart as failingPartOf, renderDecodeFailure } from "../src/DecodeFailure.js"
import * as RouteTable from "../src/RouteTable.js"
import { effectProp } from "./props.js"

const id = "0b7c3e1a-5f2d-4c8e-9a61-3d2f4b5c6e7f"
const goodKey = "erp-product-4711"

const request = (
  method: string,
  path: string,
  options: { readonly headers?: Record<string, string>; readonly body?: unknown } = {}
) =>
  HttpServerRequest.fromWeb(
    new Request(`http://localhost${path}`, {
      method,
      headers: { ...(options.body === undefined ? {} : { "content-type": "application/json" }), ...options.headers },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) })
    })
  )

const routes = RouteTable.make()

/** The failing part of a request whose route is found in the route table, as the envelope finds it. */
const failingPart = (req: HttpServerRequest.HttpServerRequest) => failingPartOf(req, routes.find(req.method, req.url))

const classify = (req: HttpServerRequest.HttpServerRequest) =>
  Effect.sync(() =>
    Option.map(failingPart(req), (failure) => ({ part: failure.part, ...renderDecodeFailure(failure) }))
  )

describe("failingPart", () => {
  it.effect("a path id that is not a uuid is the path: 404 not_found, with the issue of the path schema", () =>
    Effect.gen(function* () {
      const found = yield* classify(request("GET", "/api/v1/products/not-a-uuid"))
      expect(Option.getOrThrow(found)).toEqual({
        part: "path",
        status: 404,
        error: {
          code: "not_found",
          message: "no record has that id (ids are uuids)",
          details: [{ path: "$.id", message: "must be a uuid" }]
        }
      })
    })
  )

  it.effect("a bad query is the query: 422 validation_failed with query.<name> paths, unknown names included", () =>
    Effect.gen(function* () {
      const found = Option.getOrThrow(yield* classify(request("GET", "/api/v1/categories?limit=0&colour=red")))
      expect(found.part).toBe("query")
      expect(found.status).toBe(422)
      expect(found.error.code).toBe("validation_failed")
      expect(found.error.message).toBe("query parameters are not valid")
      expect(found.error.details).toEqual(
        expect.arrayContaining([
          { path: "query.limit", message: "must be a whole number from 1 to 100" },
          { path: "query.colour", message: "is not an allowed property" }
        ])
      )
    })
  )

  it.effect("limit is decimal digits: what Number alone would also read is refused as an out-of-range limit", () =>
    Effect.gen(function* () {
      for (const limit of ["1e2", "0x10", "%2050", "50%20", "%2B5", "5.0", "-5", "", "0b11", "Infinity", "1_0"]) {
        const found = Option.getOrThrow(yield* classify(request("GET", `/api/v1/products?limit=${limit}`)))
        expect({ limit, status: found.status, details: found.error.details }).toEqual({
          limit,
          status: 422,
          details: [{ path: "query.limit", message: "must be a whole number from 1 to 100" }]
        })
      }
      for (const limit of ["1", "050", "100"]) {
        expect(yield* classify(request("GET", `/api/v1/products?limit=${limit}`))).toEqual(Option.none())
      }
    })
  )

  it.effect("a body is never a part: its handler decodes it (once, with bounded work)", () =>
    Effect.gen(function* () {
      const found = yield* classify(
        request("POST", "/api/v1/categories/upsert", {
          headers: { "idempotency-key": goodKey },
          body: { external_id: 7 }
        })
      )
      expect(found).toEqual(Option.none())
    })
  )

  it.effect("a bad Idempotency-Key is the headers: 422 idempotency_key_invalid", () =>
    Effect.gen(function* () {
      const found = Option.getOrThrow(
        yield* classify(
          request("DELETE", `/api/v1/products/${id}`, {
            headers: { "idempotency-key": "short" },
            body: { expected_revision: 1 }
          })
        )
      )
      expect(found).toMatchObject({ part: "headers", status: 422, error: { code: "idempotency_key_invalid" } })
    })
  )

  it.effect("parts are tried in the framework's order: path, then headers", () =>
    Effect.gen(function* () {
      const everythingBad = request("DELETE", "/api/v1/products/nope", {
        headers: { "idempotency-key": "x" },
        body: { expected_revision: 0 }
      })
      expect(Option.map(failingPart(everythingBad), (failure) => failure.part)).toEqual(Option.some("path"))
      const bodyAndHeader = request("DELETE", `/api/v1/products/${id}`, {
        headers: { "idempotency-key": "x" },
        body: { expected_revision: 0 }
      })
      expect(Option.map(failingPart(bodyAndHeader), (failure) => failure.part)).toEqual(Option.some("headers"))
    })
  )

  it.effect("a query of any number of unknown names lists the first 20 and says more were omitted", () =>
    Effect.gen(function* () {
      const names = Array.from({ length: 2_000 }, (_, i) => `x${i}=1`).join("&")
      const found = Option.getOrThrow(yield* classify(request("GET", `/api/v1/categories?${names}`)))
      expect(found.error.details).toHaveLength(20)
      expect((found.error.details as ReadonlyArray<unknown>)[0]).toEqual({
        path: "query.x0",
        message: "is not an allowed property"
      })
      expect(found.error.message).toBe(
        "query parameters are not valid; the first 20 problems are listed, more were omitted"
      )
    })
  )

  it.effect("a request whose every part decodes, or that no endpoint takes, has no failing part", () =>
    Effect.gen(function* () {
      expect(failingPart(request("GET", `/api/v1/products/${id}`))).toEqual(Option.none())
      expect(failingPart(request("GET", "/api/v1/products?limit=10"))).toEqual(Option.none())
      expect(
        failingPart(
          request("DELETE", `/api/v1/products/${id}`, {
            headers: { "idempotency-key": goodKey },
            body: { expected_revision: 3 }
          })
        )
      ).toEqual(Option.none())
      expect(failingPart(request("GET", "/api/v1/no-such-thing/1"))).toEqual(Option.none())
    })
  )

  effectProp(
    "an Idempotency-Key is the failing part exactly when it does not match ^[A-Za-z0-9._:-]{8,120}$",
    [
      fc.oneof(
        fc.stringMatching(/^[A-Za-z0-9._:-]{1,130}$/),
        fc.string({ unit: fc.constantFrom("a", "Z", "7", "-", "!", " ", "/"), maxLength: 20 }).map((key) => key.trim())
      )
    ],
    ([key]) =>
      Effect.gen(function* () {
        const archive = request("DELETE", `/api/v1/products/${id}`, {
          headers: { "idempotency-key": key },
          body: { expected_revision: 1 }
        })
        const part = Option.map(failingPart(archive), (failure) => failure.part)
        expect(part).toEqual(/^[A-Za-z0-9._:-]{8,120}$/.test(key) ? Option.none() : Option.some("headers"))
      })
  )
})

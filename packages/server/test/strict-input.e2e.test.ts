import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import sharp from "sharp"
import { at, detailPaths, idOf, str } from "./Json.js"
import { call, expectError, freshKey, rawRequest, TestServer, TestServerLive, waitJob } from "./TestServer.js"

/**
 * Input the server once took by rewriting it: invalid UTF-8 stored as U+FFFD, `limit=1e2`, number
 * literals JSON.parse cannot hold (0.000…1 read as 0, 9007199254740993 as …992). Each is refused now.
 */

const writer = ["catalog:read", "catalog:write", "media:read", "media:write"]

/** Byte sequences no UTF-8 decoder may accept: overlong, lone continuation, truncated, a surrogate, past U+10FFFF. */
const invalidUtf8 = ["c080", "e080af", "80", "e282", "eda080", "f4908080"]

const withBytes = (before: string, hex: string, after: string) =>
  Buffer.concat([Buffer.from(before), Buffer.from(hex, "hex"), Buffer.from(after)])

const sendJson = (url: string, token: string, method: string, path: string, body: Buffer | string) =>
  Effect.map(
    rawRequest(
      url,
      method,
      `/api/v1${path}`,
      {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(body)),
        "idempotency-key": freshKey()
      },
      body
    ),
    (reply) => ({ status: reply.status, body: JSON.parse(reply.body) })
  )

const png = Effect.promise(() =>
  sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 1, g: 2, b: 3 } } })
    .png()
    .toBuffer()
)

const boundary = "strict-input-boundary"
const formField = (name: string, value: Buffer) =>
  Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`),
    value,
    Buffer.from("\r\n")
  ])

layer(TestServerLive, { excludeTestServices: true, timeout: 60_000 })("input that was silently rewritten", (it) => {
  describe("text that is not UTF-8", () => {
    it.effect("a JSON body with invalid UTF-8 is 400 malformed_json, and nothing is written", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const token = yield* (yield* tenant()).key(writer)
        for (const [i, bad] of invalidUtf8.entries()) {
          const reply = yield* sendJson(
            url,
            token,
            "POST",
            "/categories/upsert",
            withBytes(`{"external_id":"c${i}","name":"A`, bad, `B"}`)
          )
          expect({ bad, status: reply.status, code: at(reply.body, "error", "code") }).toEqual({
            bad,
            status: 400,
            code: "malformed_json"
          })
          expect(at(reply.body, "error", "message")).toBe("the body is not valid JSON: it is not UTF-8 text")
        }
        expect(at((yield* call(url, "GET", "/categories", { token })).body, "records")).toEqual([])
        // Valid UTF-8, U+FFFD itself included, is taken as sent.
        const fine = yield* sendJson(
          url,
          token,
          "POST",
          "/categories/upsert",
          `{"external_id":"ok","name":"Caf\u00e9 \ufffd"}`
        )
        expect(fine.status).toBe(200)
        expect(at(fine.body, "record", "name")).toBe("Caf\u00e9 \ufffd")
      })
    )

    it.effect("a POST /media form field with invalid UTF-8 is 422 validation_failed at its path", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const token = yield* (yield* tenant()).key(writer)
        const image = yield* png
        for (const field of ["external_id", "name", "purpose"]) {
          for (const bad of invalidUtf8) {
            const value = withBytes("img", bad, "x")
            const fields = ["external_id", "name"]
              .filter((f) => f !== field)
              .map((f) => formField(f, Buffer.from("ok")))
            const body = Buffer.concat([
              ...fields,
              formField(field, value),
              Buffer.from(
                `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`
              ),
              image,
              Buffer.from(`\r\n--${boundary}--\r\n`)
            ])
            const reply = yield* rawRequest(
              url,
              "POST",
              "/api/v1/media",
              {
                authorization: `Bearer ${token}`,
                "content-type": `multipart/form-data; boundary=${boundary}`,
                "idempotency-key": freshKey()
              },
              body
            )
            const error = JSON.parse(reply.body).error
            expect({ field, bad, status: reply.status, code: error.code, details: error.details }).toEqual({
              field,
              bad,
              status: 422,
              code: "validation_failed",
              details: [{ path: `$.${field}`, message: "must be UTF-8 text" }]
            })
          }
        }
        expect(at((yield* call(url, "GET", "/media", { token })).body, "records")).toEqual([])
      })
    )
  })

  it.effect(
    "an integer in the query is decimal digits: 1e2, 0x10, +5, 5.0 and a space are refused as limit=500 is",
    () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const token = yield* (yield* tenant()).key([...writer, "stock:read"])
        for (const path of ["/products", "/categories", "/changes", "/jobs", "/imports", "/media"]) {
          for (const limit of [
            "1e2",
            "0x10",
            "%2050",
            "50%20",
            "+5",
            "%2B5",
            "5.0",
            "-5",
            "",
            "1e1",
            "0b11",
            "Infinity"
          ]) {
            const reply = yield* call(url, "GET", `${path}?limit=${limit}`, { token })
            expectError(reply, 422, "validation_failed")
            expect({ path, limit, details: at(reply.body, "error", "details") }).toEqual({
              path,
              limit,
              details: [{ path: "query.limit", message: "must be a whole number from 1 to 100" }]
            })
          }
          expect((yield* call(url, "GET", `${path}?limit=050`, { token })).status).toBe(200)
        }
      })
  )

  describe("numbers JSON.parse cannot hold", () => {
    const tiny = `0.${"0".repeat(400_000)}1`

    it.effect("a non-zero number that underflows to 0, or one beyond 2^53 - 1 or Infinity, is 422 at its path", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const token = yield* (yield* tenant()).key(writer)
        const underflow = yield* sendJson(
          url,
          token,
          "POST",
          "/categories/upsert",
          `{"external_id":"u","name":"U","expected_revision":${tiny}}`
        )
        expect(underflow.status).toBe(422)
        expect(at(underflow.body, "error")).toMatchObject({
          code: "validation_failed",
          details: [{ path: "$.expected_revision", message: "is too small to be held: it would be read as 0" }]
        })
        expect(at((yield* call(url, "GET", "/categories?external_id=u", { token })).body, "records")).toEqual([])
        for (const literal of ["9007199254740993", "-9007199254740992", "1e400", "9.007199254740993e15", "-1e-400"]) {
          const reply = yield* sendJson(
            url,
            token,
            "POST",
            "/categories/upsert",
            `{"external_id":"u","name":"U","expected_revision":${literal}}`
          )
          expect({ literal, status: reply.status, paths: detailPaths(reply.body) }).toEqual({
            literal,
            status: 422,
            paths: ["$.expected_revision"]
          })
        }
        // Exact values at the edge, and a zero however it is spelt, are numbers like any other.
        for (const literal of ["9007199254740991", "0.0e-999", "1e0"]) {
          const reply = yield* sendJson(
            url,
            token,
            "POST",
            "/categories/upsert",
            `{"external_id":"u","name":"U","expected_revision":${literal}}`
          )
          expect({ literal, code: at(reply.body, "error", "code") }).not.toEqual({ literal, code: "validation_failed" })
        }
        const cat = yield* call(url, "POST", "/categories/upsert", { token, body: { external_id: "d", name: "D" } })
        const created = yield* call(url, "POST", "/products/upsert", {
          token,
          body: { external_id: "p", name: "P", category_ids: [idOf(cat.body)] }
        })
        const id: string = idOf(created.body)
        const archive = yield* sendJson(url, token, "DELETE", `/products/${id}`, `{"expected_revision":${tiny}}`)
        expect({ status: archive.status, code: at(archive.body, "error", "code") }).toEqual({
          status: 422,
          code: "validation_failed"
        })
        expect(at(archive.body, "error", "details")).toEqual([
          { path: "$.expected_revision", message: "is too small to be held: it would be read as 0" }
        ])
        const records = `[{"resource":"categories","body":{"external_id":"i","name":"I"}},{"resource":"categories","body":{"external_id":"j","name":"J","expected_revision":9007199254740993}}]`
        const imported = yield* sendJson(url, token, "POST", "/imports", `{"records":${records}}`)
        expect(imported.status).toBe(422)
        expect(at(imported.body, "error", "details")).toEqual([
          {
            path: "$.records[1].body.expected_revision",
            message: "must be between -9007199254740991 and 9007199254740991: larger numbers are not held exactly"
          }
        ])
      })
    )
  })

  describe("a retry with the uuid in other letters", () => {
    it.effect("DELETE /products/{id} with the same Idempotency-Key is replayed, lower then upper case and back", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const token = yield* (yield* tenant()).key(writer)
        const cat = yield* call(url, "POST", "/categories/upsert", { token, body: { external_id: "c", name: "C" } })
        for (const [i, [first, retry]] of [
          [(id: string) => id, (id: string) => id.toUpperCase()],
          [(id: string) => id.toUpperCase(), (id: string) => id]
        ].entries()) {
          const product = yield* call(url, "POST", "/products/upsert", {
            token,
            body: { external_id: `p${i}`, name: "P", category_ids: [idOf(cat.body)] }
          })
          const id: string = idOf(product.body)
          const archive = { token, idempotencyKey: freshKey(), body: { expected_revision: 1 } }
          const done = yield* call(url, "DELETE", `/products/${first!(id)}`, archive)
          expect(done.status).toBe(200)
          const again = yield* call(url, "DELETE", `/products/${retry!(id)}`, archive)
          expect({ status: again.status, replayed: at(again.body, "replayed") }).toEqual({
            status: 200,
            replayed: true
          })
          expect(at(again.body, "record")).toEqual(at(done.body, "record"))
        }
      })
    )

    it.effect("POST /jobs/{id}/retry and /imports/{id}/retry with the same Idempotency-Key are replayed", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const token = yield* (yield* tenant()).key(writer)
        const cases = [
          { endpoint: "jobs", first: (id: string) => id, retry: (id: string) => id.toUpperCase() },
          { endpoint: "jobs", first: (id: string) => id.toUpperCase(), retry: (id: string) => id },
          { endpoint: "imports", first: (id: string) => id, retry: (id: string) => id.toUpperCase() },
          { endpoint: "imports", first: (id: string) => id.toUpperCase(), retry: (id: string) => id }
        ]
        for (const [i, { endpoint, first, retry }] of cases.entries()) {
          // A completed import with a failed record (its category is missing) may be retried.
          const accepted = yield* call(url, "POST", "/imports", {
            token,
            body: {
              records: [
                {
                  resource: "products",
                  body: { external_id: `p${i}`, name: "P", category_ids: [{ external_id: "none" }] }
                }
              ]
            }
          })
          const id: string = str(accepted.body, "job", "id")
          expect((yield* waitJob(url, token, id)).state).toBe("completed")
          const key = freshKey()
          const retried = yield* call(url, "POST", `/${endpoint}/${first(id)}/retry`, { token, idempotencyKey: key })
          expect(retried.status).toBe(202)
          const again = yield* call(url, "POST", `/${endpoint}/${retry(id)}/retry`, { token, idempotencyKey: key })
          expect({ i, status: again.status, replayed: at(again.body, "replayed") }).toEqual({
            i,
            status: 202,
            replayed: true
          })
        }
      })
    )
  })
})

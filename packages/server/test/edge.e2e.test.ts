import { describe, expect, layer } from "@effect/vitest"
import { HttpServer } from "effect/http"
import type { NetAddress } from "effect/net"
import { ConfigProvider, Context, Effect, Fiber, Layer } from "effect"
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { request as httpRequest } from "node:http"
import { join } from "node:path"
import sharp from "sharp"
import { maxJsonBytes, maxMediaBodyBytes } from "../../adapter-http/src/BodyLimit.js"
import { ServerLive } from "../src/Server.js"
import { at, jobOf, str } from "./Json.js"
import { type Answer, answersIn, rawConnection, type Sent, until, viaCurl, viaFetch, viaUndici } from "./EdgeClients.js"
import {
  call,
  earlyInMinute,
  expectError,
  freshKey,
  type LoggedLine,
  rawRequest,
  testDatabase,
  TestServer,
  TestServerWith,
  uploadMedia,
  waitJob
} from "./TestServer.js"

const writer = ["catalog:read", "catalog:write", "media:read", "media:write"]
const boundary = "edge-boundary-7f3a"

/** A multipart upload of exactly `size` bytes: the fields, then a file part filling the rest. */
const multipartBody = (size: number) => {
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="external_id"\r\n\r\nimg\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nImage\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`
  )
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
  return Buffer.concat([head, Buffer.alloc(Math.max(0, size - head.length - tail.length), 0x41), tail])
}

/** A valid JSON upsert body of exactly `size` bytes (padded with whitespace). */
const jsonBody = (size: number) => {
  const json = JSON.stringify({ external_id: "edge", name: "Edge" })
  return Buffer.from(json + " ".repeat(Math.max(0, size - json.length)))
}

/** GET /health's status (outside the API prefix). */
const health = (url: string) => Effect.promise(() => fetch(`${url}/health`).then((r) => r.status))

const png = Effect.promise(() =>
  sharp({ create: { width: 16, height: 16, channels: 3, background: { r: 1, g: 2, b: 3 } } })
    .png()
    .toBuffer()
)

/** A key whose rate limit is used up for the current minute (121 requests). */
const exhaust = (url: string, token: string) =>
  Effect.gen(function* () {
    if ((yield* call(url, "GET", "/me", { token })).status === 429) return
    yield* Effect.all(
      Array.from({ length: 120 }, () => call(url, "GET", "/me", { token })),
      { concurrency: 8 }
    )
  })

/** The answer a client must read: the early answer below the limit, 413 past it. */
const expected = (status: number, code: string, size: number, limit: number) =>
  size > limit ? { status: 413, code: "payload_too_large" } : { status, code }

layer(TestServerWith(), { excludeTestServices: true, timeout: 240_000 })("the HTTP edge", (it) => {
  describe("early answers", () => {
    it.effect(
      "every client reads every early answer (401, 403, 415, 422, 429, 413) of POST /media and a JSON endpoint, from 1 KB to past the limit: fetch, undici and curl",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const t = yield* tenant()
          const full = yield* t.key(writer)
          const reader = yield* t.key(["catalog:read"])
          const limited = yield* t.key(writer)
          const dir = mkdtempSync(join(tmpdir(), "catalog-sync-edge-"))
          yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
          const clients = { fetch: viaFetch, undici: viaUndici, curl: viaCurl(dir) } as const
          interface Case {
            readonly name: string
            readonly path: string
            readonly token: string
            readonly headers?: Record<string, string>
            readonly idempotency?: false
            readonly contentType: string
            readonly status: number
            readonly code: string
            readonly before?: Effect.Effect<void>
          }
          const media = (extra: Omit<Case, "path" | "contentType"> & { readonly contentType?: string }): Case => ({
            path: "/api/v1/media",
            contentType: `multipart/form-data; boundary=${boundary}`,
            ...extra
          })
          const json = (extra: Omit<Case, "path" | "contentType"> & { readonly contentType?: string }): Case => ({
            path: "/api/v1/categories/upsert",
            contentType: "application/json",
            ...extra
          })
          const limits = { "/api/v1/media": maxMediaBodyBytes, "/api/v1/categories/upsert": maxJsonBytes } as const
          const cases: ReadonlyArray<Case> = [
            media({
              name: "media 401",
              token: "csk_000000000000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
              status: 401,
              code: "invalid_credentials"
            }),
            media({ name: "media 403", token: reader, status: 403, code: "insufficient_scope" }),
            media({
              name: "media 415",
              token: full,
              contentType: "application/json",
              status: 415,
              code: "unsupported_media_type"
            }),
            media({ name: "media 422", token: full, idempotency: false, status: 422, code: "idempotency_key_invalid" }),
            media({
              name: "media 429",
              token: limited,
              status: 429,
              code: "rate_limited",
              before: exhaust(url, limited)
            }),
            json({
              name: "json 401",
              token: "csk_000000000000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
              status: 401,
              code: "invalid_credentials"
            }),
            json({ name: "json 403", token: reader, status: 403, code: "insufficient_scope" }),
            json({
              name: "json 415",
              token: full,
              contentType: "text/plain",
              status: 415,
              code: "unsupported_media_type"
            }),
            json({ name: "json 422", token: full, idempotency: false, status: 422, code: "idempotency_key_invalid" }),
            json({ name: "json 429", token: limited, status: 429, code: "rate_limited", before: exhaust(url, limited) })
          ]
          yield* earlyInMinute
          const wrong: Array<string> = []
          let sent = 0
          for (const c of cases) {
            const limit = limits[c.path as keyof typeof limits]
            const sizes = [1_000, 1_000_000, limit - 1_000, limit + 1_000]
            for (const size of sizes) {
              // One 413 per path and client is enough: it is answered from Content-Length alone.
              if (size > limit && c.status !== 401) continue
              for (const [clientName, client] of Object.entries(clients)) {
                if (c.before !== undefined) yield* c.before
                const headers: Record<string, string> = {
                  authorization: `Bearer ${c.token}`,
                  "content-type": c.contentType
                }
                if (c.idempotency !== false) headers["idempotency-key"] = freshKey()
                const raw =
                  c.path === "/api/v1/media" && c.contentType.startsWith("multipart")
                    ? multipartBody(size)
                    : jsonBody(size)
                // fetch sends uploads as connectors do: FormData with the file as a Blob.
                let body: Sent["body"] = raw
                if (clientName === "fetch" && c.contentType.startsWith("multipart")) {
                  const form = new FormData()
                  form.append("external_id", "img")
                  form.append("name", "Image")
                  form.append("file", new Blob([new Uint8Array(Math.max(1, size - 400))]), "a.png")
                  body = form
                  delete headers["content-type"]
                }
                const answer: Answer = yield* client({ url: `${url}${c.path}`, headers, body })
                sent++
                const want = expected(c.status, c.code, size, limit)
                const closes = want.status === 413
                if (
                  answer.status !== want.status ||
                  answer.code !== want.code ||
                  (answer.connection !== null && (answer.connection === "close") !== closes)
                ) {
                  wrong.push(
                    `${c.name} ${size} B via ${clientName}: ${answer.status} ${answer.code} connection=${answer.connection}, expected ${want.status} ${want.code}`
                  )
                }
              }
            }
          }
          expect(sent).toBeGreaterThan(90)
          expect(wrong).toEqual([])
        }),
      // ~96 requests, a third of them 10 MB bodies through three clients: ~10-25 s, twice that on a busy machine.
      { timeout: 120_000 }
    )

    it.effect(
      "an early answer comes before the body is sent; the body is then read and discarded and the connection serves the next request",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const reader = yield* (yield* tenant()).key(["catalog:read"])
          const body = multipartBody(200_000)
          const connection = yield* rawConnection(url)
          connection.socket.write(
            `POST /api/v1/media HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${reader}\r\nIdempotency-Key: ${freshKey()}\r\n` +
              `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`
          )
          expect(yield* until(() => answersIn(connection.received()).length === 1, 5_000)).toBe(true)
          expect(answersIn(connection.received())).toEqual([{ status: 403, code: "insufficient_scope", close: false }])
          for (let at = 0; at < body.length; at += 50_000) {
            connection.socket.write(body.subarray(at, at + 50_000))
            yield* Effect.sleep("20 millis")
          }
          connection.socket.write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
          expect(yield* until(() => answersIn(connection.received()).length === 2, 5_000)).toBe(true)
          expect(answersIn(connection.received())[1]).toMatchObject({ status: 200 })
          expect(connection.closed()).toBe(false)

          // Chunked, without a key: 401 at once, the body drained, the connection kept.
          const chunked = yield* rawConnection(url)
          chunked.socket.write(
            `POST /api/v1/categories/upsert HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`
          )
          expect(yield* until(() => answersIn(chunked.received()).length === 1, 5_000)).toBe(true)
          expect(answersIn(chunked.received())[0]).toEqual({ status: 401, code: "missing_credentials", close: false })
          const piece = "x".repeat(100_000)
          for (let i = 0; i < 3; i++) chunked.socket.write(`${piece.length.toString(16)}\r\n${piece}\r\n`)
          chunked.socket.write("0\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n")
          expect(yield* until(() => answersIn(chunked.received()).length === 2, 5_000)).toBe(true)
          expect(answersIn(chunked.received())[1]).toMatchObject({ status: 200 })

          // Past the 1 MB limit the server stops reading and closes the connection.
          const endless = yield* rawConnection(url)
          endless.socket.write(
            `POST /api/v1/categories/upsert HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`
          )
          expect(yield* until(() => answersIn(endless.received()).length === 1, 5_000)).toBe(true)
          for (let i = 0; i < 15 && !endless.closed(); i++) {
            endless.socket.write(`${piece.length.toString(16)}\r\n${piece}\r\n`)
            yield* Effect.sleep("10 millis")
          }
          expect(yield* until(endless.closed, 5_000)).toBe(true)
        })
    )

    it.effect(
      "bodies that stop, or go on a byte a second, after an early 401 do not hold their connections: let go after 2 s idle or 10 s in all, and /health answers meanwhile",
      () =>
        Effect.gen(function* () {
          const { url } = yield* TestServer
          const connections = yield* Effect.all(
            Array.from({ length: 200 }, () => rawConnection(url, { halfOpen: true })),
            { concurrency: 50 }
          )
          const started = Date.now()
          for (const c of connections)
            c.socket.write(
              `POST /api/v1/media HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 10000000\r\n\r\n`
            )
          expect(yield* until(() => connections.every((c) => answersIn(c.received()).length === 1), 10_000)).toBe(true)
          expect(new Set(connections.map((c) => JSON.stringify(answersIn(c.received())[0])))).toEqual(
            new Set([JSON.stringify({ status: 401, code: "missing_credentials", close: false })])
          )
          // Half open, as an attacker's client is: the server's end shows as its FIN, or a write refused.
          const gone = (c: (typeof connections)[number]) => c.ended() || c.closed() || c.failed() !== undefined
          const silent = connections.slice(0, 100)
          const dripping = connections.slice(100)
          const drip = yield* Effect.forkChild(
            Effect.forever(
              Effect.andThen(
                Effect.sync(() => dripping.forEach((c) => gone(c) || c.socket.write("x"))),
                Effect.sleep("1 second")
              )
            )
          )
          expect(yield* health(url)).toBe(200)
          expect(yield* until(() => silent.every(gone), 5_000)).toBe(true)
          const silentGone = Date.now() - started
          expect(yield* until(() => dripping.every(gone), 18_000)).toBe(true)
          const drippingGone = Date.now() - started
          yield* Fiber.interrupt(drip)
          console.log(
            `after their 401: 100 silent bodies let go within ${silentGone} ms, 100 sent a byte a second within ${drippingGone} ms`
          )
          // Both were held until HTTP_REQUEST_TIMEOUT_SECONDS (120 s) before.
          expect(silentGone).toBeLessThan(5_000)
          // 10 s after each one's answer, which 200 connections get over a second or two on a busy machine.
          expect(drippingGone).toBeLessThan(16_000)
          expect(yield* health(url)).toBe(200)
        }),
      { timeout: 40_000 }
    )

    it.effect(
      "a body sent to a path no route takes is answered 404 before it is read, however the path is spelled",
      () =>
        Effect.gen(function* () {
          const { url } = yield* TestServer
          for (const path of ["/elsewhere", "//api/v1/nothing", "/API/v1/nothing"]) {
            const connection = yield* rawConnection(url, { halfOpen: true })
            // The head of a 1 MB JSON body, and none of the body: an answer that waited for it would not come.
            connection.socket.write(
              `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${maxJsonBytes}\r\n\r\n`
            )
            expect(yield* until(() => answersIn(connection.received()).length === 1, 1_500), path).toBe(true)
            expect(answersIn(connection.received()).map(({ status, code }) => ({ path, status, code }))).toEqual([
              { path, status: 404, code: "route_not_found" }
            ])
          }
        })
    )

    it.effect(
      "a 413 answered before the body arrives lets a client still sending it finish and read the answer; a request pipelined behind it is not served; a client that stops sending, or never does, is let go",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const token = yield* (yield* tenant()).key(writer)
          const size = maxJsonBytes + 200_000
          const headOf = (length: number) =>
            `POST /api/v1/categories/upsert HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
            `Idempotency-Key: ${freshKey()}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`
          const head = headOf(size)
          // The body sent only once the answer is in: the race of a client below curl's Expect threshold.
          const late = yield* rawConnection(url, { halfOpen: true })
          late.socket.write(head)
          expect(yield* until(() => answersIn(late.received()).length === 1, 5_000)).toBe(true)
          expect(answersIn(late.received())).toEqual([{ status: 413, code: "payload_too_large", close: true }])
          const body = jsonBody(size)
          for (let at = 0; at < size; at += 100_000) {
            late.socket.write(body.subarray(at, at + 100_000))
            yield* Effect.sleep("20 millis")
          }
          late.socket.end()
          expect(yield* until(late.closed, 5_000)).toBe(true)
          expect(late.failed()).toBeUndefined()

          // A request pipelined right behind the refused body is not served: the connection was answered
          // with a close, and an upsert run there could never tell its client.
          const piped = yield* rawConnection(url, { halfOpen: true })
          piped.socket.write(headOf(size))
          expect(yield* until(() => answersIn(piped.received()).length === 1, 5_000)).toBe(true)
          const next = JSON.stringify({ external_id: "piped-after-413", name: "Piped" })
          piped.socket.write(Buffer.concat([body, Buffer.from(headOf(next.length) + next)]))
          piped.socket.end()
          expect(yield* until(piped.closed, 5_000)).toBe(true)
          expect(answersIn(piped.received())).toHaveLength(1)
          const listed = yield* call(url, "GET", "/categories?external_id=piped-after-413", { token })
          expect(at(listed.body, "records")).toEqual([])

          // A client that sends nothing after the answer: the server stops waiting for it (what it sends
          // later is refused with a reset).
          const silent = yield* rawConnection(url, { halfOpen: true })
          silent.socket.write(head)
          expect(yield* until(() => answersIn(silent.received()).length === 1, 5_000)).toBe(true)
          yield* Effect.sleep("3 seconds")
          for (let i = 0; i < 20 && silent.failed() === undefined; i++) {
            silent.socket.write(body.subarray(0, 10_000))
            yield* Effect.sleep("50 millis")
          }
          expect(silent.failed()).toMatch(/EPIPE|ECONNRESET/)

          // A client that never stops sending is reset once 64 MiB of it were discarded.
          const flood = yield* rawConnection(url, { halfOpen: true })
          flood.socket.write(headOf(1_000_000_000))
          expect(yield* until(() => answersIn(flood.received()).length === 1, 5_000)).toBe(true)
          const mebibyte = Buffer.alloc(2 ** 20, 0x20)
          let written = 0
          while (flood.failed() === undefined && written < 256 * 2 ** 20) {
            if (!flood.socket.write(mebibyte))
              yield* until(() => flood.socket.writableLength === 0 || flood.failed() !== undefined, 5_000)
            written += mebibyte.length
          }
          expect(flood.failed()).toMatch(/EPIPE|ECONNRESET/)
          expect(written).toBeLessThan(128 * 2 ** 20)
        })
    )

    it.effect(
      "Expect: 100-continue: a body declared over its limit gets 413 without a 100, so nothing of it is sent; others go on",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const token = yield* (yield* tenant()).key(writer)
          const over = yield* rawConnection(url)
          over.socket.write(
            `POST /api/v1/media HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nIdempotency-Key: ${freshKey()}\r\n` +
              `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${maxMediaBodyBytes + 1}\r\n` +
              `Expect: 100-continue\r\n\r\n`
          )
          expect(yield* until(() => answersIn(over.received()).length === 1, 5_000)).toBe(true)
          expect(over.received()).not.toContain("100 Continue")
          expect(answersIn(over.received())).toEqual([{ status: 413, code: "payload_too_large", close: true }])
          expect(yield* until(over.closed, 5_000)).toBe(true)

          const within = yield* rawConnection(url)
          const body = JSON.stringify({ external_id: "expecting", name: "Expecting" })
          within.socket.write(
            `POST /api/v1/categories/upsert HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
              `Idempotency-Key: ${freshKey()}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
              `Expect: 100-continue\r\n\r\n`
          )
          expect(yield* until(() => within.received().startsWith("HTTP/1.1 100 Continue\r\n\r\n"), 5_000)).toBe(true)
          within.reset()
          within.socket.write(body)
          expect(yield* until(() => answersIn(within.received()).length === 1, 5_000)).toBe(true)
          expect(answersIn(within.received())[0]).toMatchObject({ status: 200, close: false })
        })
    )

    it.effect(
      "with a valid key a chunked JSON body is read across its chunks, and one past 1 MB is answered 413 while it streams",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const token = yield* (yield* tenant()).key(writer)
          const head = (key: string) =>
            `POST /api/v1/categories/upsert HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
            `Idempotency-Key: ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`
          const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`

          // Split by bytes, so that a chunk ends inside a two-byte character.
          const name = `Chunky ${"é".repeat(90)}`
          const body = Buffer.from(JSON.stringify({ external_id: "chunky", name }))
          const cuts = [0, 7, 40, 41, body.length]
          const whole = yield* rawConnection(url)
          whole.socket.write(head(freshKey()))
          for (let i = 1; i < cuts.length; i++) {
            const piece = body.subarray(cuts[i - 1], cuts[i])
            whole.socket.write(`${piece.length.toString(16)}\r\n`)
            whole.socket.write(piece)
            whole.socket.write("\r\n")
            yield* Effect.sleep("20 millis")
          }
          whole.socket.write("0\r\n\r\n")
          expect(yield* until(() => answersIn(whole.received()).length === 1, 5_000)).toBe(true)
          expect(answersIn(whole.received())[0]).toMatchObject({ status: 200, close: false })
          const read = yield* call(url, "GET", "/categories?external_id=chunky", { token })
          expect(at(read.body, "records", 0, "name")).toBe(name)

          const endless = yield* rawConnection(url)
          endless.socket.write(head(freshKey()))
          const piece = `"${"x".repeat(99_998)}"`
          for (let i = 0; i < 15 && !endless.closed(); i++) {
            endless.socket.write(chunk(piece))
            yield* Effect.sleep("10 millis")
          }
          expect(yield* until(() => answersIn(endless.received()).length === 1, 5_000)).toBe(true)
          expect(answersIn(endless.received())[0]).toEqual({ status: 413, code: "payload_too_large", close: true })
          expect(yield* until(endless.closed, 5_000)).toBe(true)
        })
    )
  })

  describe("the key before the body", () => {
    it.effect(
      "a request with a body and no valid key is answered 401 before its body is looked at (deep or malformed JSON, a wrong content type)",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const token = yield* (yield* tenant()).key(writer)
          const deep = `{"external_id":"d","name":"D","x":${"[".repeat(70)}${"]".repeat(70)}}`
          for (const [raw, type] of [
            [deep, "application/json"],
            ['{"external_id": ', "application/json"],
            ["x=1", "text/plain"]
          ] as const) {
            expectError(
              yield* call(url, "POST", "/categories/upsert", { raw, headers: { "content-type": type } }),
              401,
              "missing_credentials"
            )
            expectError(
              yield* call(url, "POST", "/categories/upsert", {
                raw,
                headers: { "content-type": type, authorization: "Bearer csk_x" }
              }),
              401,
              "invalid_credentials"
            )
          }
          expectError(
            yield* call(url, "POST", "/categories/upsert", {
              token,
              raw: deep,
              headers: { "content-type": "application/json" }
            }),
            400,
            "json_too_deep"
          )
          // The RateLimit headers are on answers to requests with a body too.
          const written = yield* call(url, "POST", "/categories/upsert", {
            token,
            body: { external_id: "c", name: "C" }
          })
          expect(written.status).toBe(200)
          expect(written.headers.get("ratelimit-limit")).toBe("120")
        })
    )
  })

  describe("multipart limits", () => {
    it.effect(
      "an unknown field is refused at once, a field over 4 KiB and 170,000 tiny parts cost milliseconds, and /health stays fast meanwhile",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const token = yield* (yield* tenant()).key(writer)
          // 170,000 fields of one byte in 8.5 MB, within the upload limit.
          const manyParts = Buffer.from(
            Array.from({ length: 170_000 }, () => `--b\r\nContent-Disposition: form-data; name="f"\r\n\r\n1\r\n`).join(
              ""
            ) + `--b--\r\n`
          )
          expect(manyParts.length).toBeLessThan(maxMediaBodyBytes)
          const send = (body: Buffer) =>
            rawRequest(
              url,
              "POST",
              "/api/v1/media",
              {
                authorization: `Bearer ${token}`,
                "idempotency-key": freshKey(),
                "content-type": "multipart/form-data; boundary=b",
                "content-length": String(body.length)
              },
              body
            )
          const aloneStart = Date.now()
          const alone = yield* send(manyParts)
          const aloneMillis = Date.now() - aloneStart
          const started = Date.now()
          const [answers, healthMillis] = yield* Effect.all(
            [
              Effect.all(
                Array.from({ length: 4 }, () => send(manyParts)),
                { concurrency: "unbounded" }
              ),
              Effect.gen(function* () {
                yield* Effect.sleep("30 millis")
                const at = Date.now()
                expect(yield* health(url)).toBe(200)
                return Date.now() - at
              })
            ],
            { concurrency: "unbounded" }
          )
          // The clients run in this process too: their 35 MB of writing is part of what /health waits for.
          console.log(
            `multipart: one body of 170,000 parts (${manyParts.length} bytes) answered in ${aloneMillis} ms; four at once in ${Date.now() - started} ms, /health meanwhile ${healthMillis} ms`
          )
          for (const answer of [alone, ...answers]) {
            expect(answer.status).toBe(422)
            expect(JSON.parse(answer.body).error).toMatchObject({
              code: "validation_failed",
              details: [{ path: "$.f", message: expect.stringContaining("not a field") }]
            })
          }
          expect(aloneMillis).toBeLessThan(1_000)
          expect(healthMillis).toBeLessThan(2_500)
          const longField = yield* uploadMedia(
            url,
            token,
            { external_id: "long", name: "n".repeat(5_000) },
            new Uint8Array(yield* png)
          )
          expectError(longField, 422, "validation_failed")
          expect(str(longField.body, "error", "details", 0, "message")).toContain("4096")
          const url_ = yield* uploadMedia(
            url,
            token,
            { external_id: "u", name: "U", image_url: "https://example.com/a.png" },
            new Uint8Array(yield* png)
          )
          expectError(url_, 422, "remote_url_not_accepted")
          const good = yield* uploadMedia(
            url,
            token,
            { external_id: "ok", name: "OK", purpose: "catalog" },
            new Uint8Array(yield* png)
          )
          expect(good.status).toBe(202)
        })
    )
  })

  describe("host names and headers", () => {
    it.effect(
      "a custom domain is recognised in any letter case, with a port or a trailing dot; forwarded hosts count only from trusted proxies",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const domain = `api-${Date.now()}.acme.example`
          const owner = yield* (yield* tenant({ domains: [domain] })).key(["catalog:read"])
          const other = yield* (yield* tenant()).key(["catalog:read"])
          const me = (token: string, headers: Record<string, string>) =>
            Effect.map(
              rawRequest(url, "GET", "/api/v1/me", { authorization: `Bearer ${token}`, ...headers }),
              (r) => r.status
            )
          for (const host of [domain, `${domain}.`, `${domain.toUpperCase()}.:8443`, `${domain}:443`]) {
            expect({ host, status: yield* me(other, { host }) }).toEqual({ host, status: 403 })
            expect({ host, status: yield* me(owner, { host }) }).toEqual({ host, status: 200 })
          }
          // No TRUSTED_PROXIES: a client cannot name another host through forwarding headers.
          expect(yield* me(other, { host: "127.0.0.1", "x-forwarded-host": domain, forwarded: `host=${domain}` })).toBe(
            200
          )
        })
    )

    it.effect(
      "a Host that is not host[:port] and a second Host header are refused with 400 invalid_host; an absolute-form target is answered for its own host",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const domain = `api-${Date.now()}.beta.example`
          const owner = yield* (yield* tenant({ domains: [domain] })).key(["catalog:read"])
          const other = yield* (yield* tenant()).key(["catalog:read"])
          const answer = (head: string) =>
            Effect.gen(function* () {
              const connection = yield* rawConnection(url)
              connection.socket.write(`${head}\r\n\r\n`)
              yield* until(() => answersIn(connection.received()).length === 1, 5_000)
              return answersIn(connection.received())[0]
            })
          const me = (token: string, hostLines: string, target = "/api/v1/me") =>
            answer(`GET ${target} HTTP/1.1\r\n${hostLines}\r\nAuthorization: Bearer ${token}`)
          // Company A's key was answered 200 through B's domain written these ways.
          for (const hostLines of [
            `Host: ${domain}:abc`,
            `Host: ${domain}%2e`,
            `Host: other.example\r\nHost: ${domain}`,
            `Host: ${domain}\r\nHost: ${domain}`
          ]) {
            expect({ hostLines, answer: yield* me(other, hostLines) }).toEqual({
              hostLines,
              answer: { status: 400, code: "invalid_host", close: true }
            })
          }
          const absolute = `http://${domain}/api/v1/me`
          expect(yield* me(other, "Host: other.example", absolute)).toMatchObject({
            status: 403,
            code: "domain_not_permitted"
          })
          expect(yield* me(owner, "Host: other.example", absolute)).toMatchObject({ status: 200 })
          // Routed by the target's path: a body is refused by its key before it is read, as for origin-form.
          expect(
            yield* answer(
              `POST http://${domain}/api/v1/categories/upsert HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500000`
            )
          ).toEqual({ status: 401, code: "missing_credentials", close: false })
          expect(yield* me(owner, `Host: ${domain}:8443`)).toMatchObject({ status: 200 })
        })
    )

    it.effect(
      "API answers carry nosniff and no-store (images keep their own caching); the portal a CSP that forbids framing, and a Referrer-Policy",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const token = yield* (yield* tenant()).key(writer)
          for (const reply of [
            yield* call(url, "GET", "/me", { token }),
            yield* call(url, "GET", "/me"),
            yield* call(url, "POST", "/categories/upsert", { token, body: { external_id: "h", name: "H" } })
          ]) {
            expect({
              nosniff: reply.headers.get("x-content-type-options"),
              cache: reply.headers.get("cache-control")
            }).toEqual({ nosniff: "nosniff", cache: "no-store" })
          }
          const portal = yield* Effect.promise(() => fetch(`${url}/docs/`))
          const csp = portal.headers.get("content-security-policy") ?? ""
          expect(csp).toContain("frame-ancestors 'none'")
          expect(csp).toContain("default-src 'none'")
          expect(csp).not.toMatch(/https?:/)
          expect(portal.headers.get("referrer-policy")).toBe("no-referrer")
          expect(portal.headers.get("x-content-type-options")).toBe("nosniff")
        })
    )
  })

  describe("files at rest", () => {
    it.effect("the database, media and staged files are readable by the server's user alone", () =>
      Effect.gen(function* () {
        const { url, tenant, dataDir } = yield* TestServer
        const token = yield* (yield* tenant()).key(writer)
        const reply = yield* uploadMedia(url, token, { external_id: "mode", name: "Mode" }, new Uint8Array(yield* png))
        expect((yield* waitJob(url, token, jobOf(reply.body).id)).state).toBe("completed")
        const mode = (path: string) => (statSync(path).mode & 0o777).toString(8)
        const media = join(dataDir, "media")
        expect(mode(media)).toBe("700")
        expect(mode(join(dataDir, "staging"))).toBe("700")
        for (const company of readdirSync(media)) {
          expect(mode(join(media, company))).toBe("700")
          for (const file of readdirSync(join(media, company))) expect(mode(join(media, company, file))).toBe("600")
        }
        if (testDatabase === "sqlite") {
          const files = readdirSync(dataDir).filter((name) => name.startsWith("catalog-sync.db"))
          expect(files).toContain("catalog-sync.db")
          for (const file of files) expect({ file, mode: mode(join(dataDir, file)) }).toEqual({ file, mode: "600" })
        }
      })
    )
  })
})

const trusted = { TRUSTED_PROXIES: "127.0.0.1, ::1", AUTH_FAILURES_PER_MINUTE: "5" }

/** A key of the right form that no company has. */
const bad = "csk_000000000000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

const statusOf = (reply: Effect.Effect<{ readonly status: number }>) => Effect.map(reply, (r) => r.status)

/**
 * A company with a custom domain (its key `owner`) and another company (`other`), and the status of
 * GET /me with a key through a proxy at 10.0.0.5 that adds `headers`.
 */
const domainBehindProxy = Effect.gen(function* () {
  const { url, tenant } = yield* TestServer
  const domain = `shop-${Date.now()}.acme.example`
  const owner = yield* (yield* tenant({ domains: [domain] })).key(["catalog:read"])
  const other = yield* (yield* tenant()).key(["catalog:read"])
  const me = (token: string, headers: Record<string, string>) =>
    statusOf(
      rawRequest(url, "GET", "/api/v1/me", { authorization: `Bearer ${token}`, host: "10.0.0.5:8080", ...headers })
    )
  return { domain, owner, other, me }
})

/** A second server on the same database, with the same settings (several instances behind one proxy). */
const secondInstance = Effect.gen(function* () {
  const { config } = yield* TestServer
  const context = yield* Layer.build(ServerLive(config)).pipe(
    Effect.provideService(
      ConfigProvider.ConfigProvider,
      ConfigProvider.fromEnvRecord(trusted).pipe(ConfigProvider.orElse(ConfigProvider.fromEnv()))
    )
  )
  return `http://127.0.0.1:${(Context.get(context, HttpServer.HttpServer).address as NetAddress.InetAddress).port}`
})

layer(TestServerWith({}, trusted), { excludeTestServices: true, timeout: 120_000 })(
  "behind trusted proxies, with a budget of 5 invalid keys",
  (it) => {
    it.effect(
      "invalid keys from one client cost it, not others: past the budget its requests get 429 before any key is looked up, on every instance",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const token = yield* (yield* tenant()).key(["catalog:read"])
          const from = (address: string, key: string | undefined, target = url) =>
            call(target, "GET", "/me", {
              ...(key === undefined ? {} : { token: key }),
              headers: { "x-forwarded-for": `${address}, 127.0.0.1` }
            })
          yield* earlyInMinute
          // Missing keys cost nothing to check and are not counted.
          for (let i = 0; i < 8; i++) expectError(yield* from("198.51.100.9", undefined), 401, "missing_credentials")
          expect((yield* from("198.51.100.9", token)).status).toBe(200)
          const other = testDatabase === "postgres" ? yield* secondInstance : url
          // Invalid keys over both instances (one on SQLite): the budget is shared through the database.
          for (let i = 0; i < 6; i++)
            expectError(yield* from("198.51.100.7", bad, i % 2 === 0 ? url : other), 401, "invalid_credentials")
          const refused = yield* from("198.51.100.7", token, other)
          expectError(refused, 429, "authentication_throttled")
          expect(Number(refused.headers.get("retry-after"))).toBe(at(refused.body, "error", "retry_after"))
          expect(at(refused.body, "error", "retry_after")).toBeGreaterThanOrEqual(1)
          // The instance that did not count the last failure blocks at its next one.
          expectError(
            yield* from("198.51.100.7", bad, url),
            url === other ? 429 : 401,
            url === other ? "authentication_throttled" : "invalid_credentials"
          )
          expectError(yield* from("198.51.100.7", token, url), 429, "authentication_throttled")
          // A body is not read either.
          expectError(
            yield* call(url, "POST", "/categories/upsert", {
              token,
              body: { external_id: "x", name: "X" },
              headers: { "x-forwarded-for": "198.51.100.7" }
            }),
            429,
            "authentication_throttled"
          )
          expect((yield* from("198.51.100.8", token)).status).toBe(200)
        })
    )

    it.effect(
      "the forwarded host of a trusted proxy is the host the custom-domain rule checks (X-Forwarded-Host)",
      () =>
        Effect.gen(function* () {
          const { me, domain, other, owner } = yield* domainBehindProxy
          expect(yield* me(other, { "x-forwarded-host": `${domain.toUpperCase()}.` })).toBe(403)
          expect(yield* me(owner, { "x-forwarded-host": domain })).toBe(200)
          expect(yield* me(other, {})).toBe(200)
        })
    )

    it.effect(
      "a client's own Forwarded header, passed through by a proxy that sets X-Forwarded-*, changes neither the custom domain nor the throttled address",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const domain = `beta-${Date.now()}.example`
          const owner = yield* (yield* tenant({ domains: [domain] })).key(["catalog:read"])
          const other = yield* (yield* tenant()).key(["catalog:read"])
          // As nginx set up as docs/deploy.md says forwards: its own X-Forwarded-Host and X-Forwarded-For
          // (the client's address appended), and the client's Forwarded header as it came.
          const viaNginx = (client: string, token: string, forwarded: string, host = "api.example") =>
            statusOf(
              rawRequest(url, "GET", "/api/v1/me", {
                authorization: `Bearer ${token}`,
                host: "10.0.0.5:8080",
                "x-forwarded-host": host,
                "x-forwarded-for": client,
                forwarded
              })
            )
          // Another company's key through B's custom domain: 403, whatever host= the client forwards.
          expect(yield* viaNginx("203.0.113.10", other, "for=198.51.100.7;host=anything.example", domain)).toBe(403)
          expect(yield* viaNginx("203.0.113.10", owner, "for=198.51.100.7;host=anything.example", domain)).toBe(200)

          yield* earlyInMinute
          // Invalid keys with a new for= each time: counted against the client's own address all the same.
          const spread: Array<number> = []
          for (let i = 0; i < 20; i++) spread.push(yield* viaNginx("203.0.113.11", bad, `for=192.0.2.${i + 1}`))
          expect(spread.slice(0, 6)).toEqual(Array(6).fill(401))
          expect(spread.slice(6)).toEqual(Array(14).fill(429))

          // Invalid keys naming a victim's address in for=: the sender is throttled, the victim is not.
          for (let i = 0; i < 7; i++) yield* viaNginx("203.0.113.12", bad, "for=203.0.113.13")
          expect(yield* viaNginx("203.0.113.12", owner, "for=203.0.113.13")).toBe(429)
          expect(yield* viaNginx("203.0.113.13", owner, "for=203.0.113.12")).toBe(200)
        })
    )

    it.effect("addresses of one IPv6 /64 share one budget of invalid keys; another /64 has its own", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const token = yield* (yield* tenant()).key(["catalog:read"])
        const from = (address: string, key: string) =>
          statusOf(call(url, "GET", "/me", { token: key, headers: { "x-forwarded-for": address } }))
        yield* earlyInMinute
        const statuses: Array<number> = []
        for (let i = 1; i <= 6; i++) statuses.push(yield* from(`2001:db8:7:7::${i.toString(16)}`, bad))
        expect(statuses).toEqual(Array(6).fill(401))
        expect(yield* from("2001:db8:7:7:ffff:1:2:3", token)).toBe(429)
        expect(yield* from("2001:db8:7:8::1", token)).toBe(200)
      })
    )
  }
)

layer(TestServerWith({}, { ...trusted, TRUSTED_PROXY_HEADERS: "forwarded" }), {
  excludeTestServices: true,
  timeout: 60_000
})("behind trusted proxies that set Forwarded", (it) => {
  it.effect(
    "the proxy's Forwarded element names the host and the client; X-Forwarded-* headers, which the client may have sent, count for nothing",
    () =>
      Effect.gen(function* () {
        const { me, domain, other, owner } = yield* domainBehindProxy
        expect(yield* me(other, { forwarded: `for=198.51.100.20;proto=https;host="${domain}:443"` })).toBe(403)
        expect(yield* me(owner, { forwarded: `for=198.51.100.20;host=${domain}` })).toBe(200)
        // The client's own element ahead of the proxy's: the proxy's names the host.
        expect(yield* me(other, { forwarded: `for=192.0.2.1;host=x.example, for=198.51.100.20;host=${domain}` })).toBe(
          403
        )
        expect(yield* me(other, { "x-forwarded-host": domain, forwarded: "for=198.51.100.20" })).toBe(200)

        yield* earlyInMinute
        const spread: Array<number> = []
        for (let i = 0; i < 10; i++)
          spread.push(yield* me(bad, { forwarded: "for=198.51.100.21", "x-forwarded-for": `192.0.2.${i + 1}` }))
        expect(spread).toEqual([...Array(6).fill(401), ...Array(4).fill(429)])
      })
  )
})

layer(
  TestServerWith(
    {},
    {
      HTTP_HEADERS_TIMEOUT_SECONDS: "0.5",
      HTTP_REQUEST_TIMEOUT_SECONDS: "1",
      HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: "0.5",
      HTTP_MAX_CONNECTIONS: "6",
      // The request time-out alone: the body rate is the next suite's.
      HTTP_BODY_MIN_BYTES_PER_SECOND: "0"
    }
  ),
  { excludeTestServices: true, timeout: 60_000 }
)("slow and idle clients", (it) => {
  it.effect(
    "connections past the cap are closed unanswered but for a health check, and served again when others end",
    () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        // Connections of earlier requests end after the 0.5 s keep-alive time-out.
        yield* Effect.sleep("800 millis")
        // Six connections that send nothing hold every slot until the 0.5 s headers time-out.
        const idle = yield* Effect.all(Array.from({ length: 6 }, () => rawConnection(url)))
        // One past the cap that asks for anything but /health is closed unanswered.
        const other = yield* rawConnection(url)
        other.socket.write("GET /api/v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n")
        expect(yield* until(other.closed, 300)).toBe(true)
        expect(other.received()).toBe("")
        // A load balancer's health check is answered, and its connection closed after it.
        const check = yield* rawConnection(url)
        check.socket.write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        expect(yield* until(check.closed, 300)).toBe(true)
        expect(check.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
        expect(idle.every((c) => !c.closed())).toBe(true)
        for (const c of idle) c.socket.destroy()
        yield* Effect.sleep("50 millis")
        expect((yield* call(url, "GET", "/openapi.json")).status).toBe(200)
      })
  )

  it.effect(
    "slowloris headers and a body sent a byte at a time are cut off with 408 near their time-outs; an idle connection is closed",
    () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const token = yield* (yield* tenant()).key(writer)
        const headers = yield* rawConnection(url)
        const start = Date.now()
        headers.socket.write("POST /api/v1/categories/upsert HTTP/1.1\r\nHost: x\r\n")
        yield* Effect.forkChild(
          Effect.repeat(
            Effect.sync(() => headers.socket.write(`X-Drip-${Date.now()}: 1\r\n`)),
            { times: 40 }
          ).pipe(Effect.tap(Effect.sleep("100 millis")), Effect.ignore)
        )
        expect(yield* until(headers.closed, 3_000)).toBe(true)
        const headersCut = Date.now() - start
        expect(answersIn(headers.received())).toEqual([{ status: 408, code: "request_timeout", close: true }])

        const body = yield* rawConnection(url)
        const bodyStart = Date.now()
        body.socket.write(
          `POST /api/v1/categories/upsert HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nIdempotency-Key: ${freshKey()}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`
        )
        const drip = Effect.sync(() => body.socket.write(" ")).pipe(Effect.andThen(Effect.sleep("100 millis")))
        yield* Effect.forkChild(Effect.ignore(Effect.repeat(drip, { times: 50 })))
        expect(yield* until(body.closed, 4_000)).toBe(true)
        const bodyCut = Date.now() - bodyStart
        expect(answersIn(body.received())).toEqual([{ status: 408, code: "request_timeout", close: true }])

        const idle = yield* rawConnection(url)
        idle.socket.write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        const idleStart = Date.now()
        expect(yield* until(idle.closed, 3_000)).toBe(true)
        const idleCut = Date.now() - idleStart
        console.log(
          `slow clients: headers cut after ${headersCut} ms (0.5 s), body after ${bodyCut} ms (1 s), idle after ${idleCut} ms (0.5 s)`
        )
        expect(headersCut).toBeLessThan(1_500)
        expect(bodyCut).toBeLessThan(2_000)
        expect(bodyCut).toBeGreaterThanOrEqual(900)
        expect(idleCut).toBeLessThan(2_500)
        expect(yield* health(url)).toBe(200)
      })
  )
})

/** GET /api/v1/me over a connection of its own from `localAddress` (any of 127.0.0.0/8 on Linux). */
const meFrom = (url: string, localAddress: string, token: string) =>
  Effect.callback<number>((resume) => {
    const target = new URL(url)
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: "/api/v1/me",
        localAddress,
        agent: false,
        headers: { authorization: `Bearer ${token}`, connection: "close" }
      },
      (res) => {
        res.resume()
        res.on("end", () => resume(Effect.succeed(res.statusCode ?? 0)))
      }
    )
    req.on("error", (error) => resume(Effect.die(error)))
    req.end()
  })

const limits = {
  HTTP_HEADERS_TIMEOUT_SECONDS: "1",
  HTTP_REQUEST_TIMEOUT_SECONDS: "60",
  HTTP_SEND_TIMEOUT_SECONDS: "1",
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: "5",
  TRUSTED_PROXIES: "127.0.0.3",
  AUTH_FAILURES_PER_MINUTE: "30",
  AUTH_FAILURES_GLOBAL_PER_MINUTE: "300",
  METRICS_PORT: "0"
}

layer(TestServerWith({}, limits), { excludeTestServices: true, timeout: 120_000 })(
  "body rate, unread answers, connections per address and the failed-key budget of all clients (request time-out 60 s)",
  (it) => {
    it.effect(
      "a body slower than 1000 bytes a second is cut off with 408 once the headers time-out has passed; a body above the rate is served",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const token = yield* (yield* tenant()).key(writer)
          const head = (length: number) =>
            `POST /api/v1/categories/upsert HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nIdempotency-Key: ${freshKey()}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`
          const slow = yield* rawConnection(url)
          const started = Date.now()
          slow.socket.write(`${head(1_000)}{`)
          yield* Effect.forkChild(
            Effect.ignore(
              Effect.repeat(
                Effect.andThen(
                  Effect.sync(() => slow.socket.write(" ")),
                  Effect.sleep("100 millis")
                ),
                { times: 300 }
              )
            )
          )
          expect(yield* until(slow.closed, 10_000)).toBe(true)
          const cut = Date.now() - started
          expect(answersIn(slow.received())).toEqual([{ status: 408, code: "request_timeout", close: true }])
          expect(slow.received()).toContain("bytes a second")
          console.log(`a body at 10 bytes a second: cut off after ${cut} ms (grace 1 s, request time-out 60 s)`)
          expect(cut).toBeGreaterThanOrEqual(1_000)
          expect(cut).toBeLessThan(3_000)

          // 6,000 bytes over 3 s (2,000 a second): above the rate, served.
          const json = JSON.stringify({ external_id: "steady", name: "Steady" })
          const body = Buffer.from(json + " ".repeat(6_000 - json.length))
          const steady = yield* rawConnection(url)
          steady.socket.write(head(body.length))
          for (let at = 0; at < body.length; at += 200) {
            steady.socket.write(body.subarray(at, at + 200))
            yield* Effect.sleep("100 millis")
          }
          expect(yield* until(() => answersIn(steady.received()).length === 1, 5_000)).toBe(true)
          expect(answersIn(steady.received())[0]).toMatchObject({ status: 200, close: false })
        }),
      { timeout: 30_000 }
    )

    it.effect(
      "an answer its client does not read is cut off after HTTP_SEND_TIMEOUT_SECONDS, its rest no longer held",
      () =>
        Effect.gen(function* () {
          const { url } = yield* TestServer
          const size = (yield* Effect.promise(() => fetch(`${url}/api/v1/openapi.json`).then((r) => r.arrayBuffer())))
            .byteLength
          const reader = yield* rawConnection(url)
          reader.socket.pause()
          // More than the loopback's socket buffers take (some MB), so that the rest waits in the server.
          const asked = 20
          reader.socket.write("GET /api/v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n".repeat(asked))
          yield* Effect.sleep("3 seconds")
          reader.socket.resume()
          expect(yield* until(reader.closed, 10_000)).toBe(true)
          const received = Buffer.byteLength(reader.received(), "latin1")
          console.log(
            `a client that read nothing for 3 s: ${received} of ${asked * size} bytes of answers reached it before the cut`
          )
          expect(received).toBeLessThan(asked * size)
          // A client that reads gets the same answers whole.
          const whole = yield* rawConnection(url)
          whole.socket.write("GET /api/v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n".repeat(asked))
          expect(yield* until(() => answersIn(whole.received()).length === asked, 10_000)).toBe(true)
        }),
      { timeout: 30_000 }
    )

    it.effect("one address holds at most 5 connections; another address, and a trusted proxy, are not held back", () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        yield* Effect.sleep("100 millis")
        const five = yield* Effect.all(Array.from({ length: 5 }, () => rawConnection(url)))
        const sixth = yield* rawConnection(url)
        expect(yield* until(sixth.closed, 1_000)).toBe(true)
        expect(sixth.received()).toBe("")
        expect(five.some((c) => c.closed())).toBe(false)
        // Another address is served meanwhile.
        expect(yield* meFrom(url, "127.0.0.2", bad)).toBe(401)
        // The trusted proxy carries many clients: no cap.
        const proxied = yield* Effect.all(
          Array.from({ length: 8 }, () => rawConnection(url, { localAddress: "127.0.0.3" }))
        )
        for (const c of proxied) c.socket.write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        expect(yield* until(() => proxied.every((c) => answersIn(c.received()).length === 1), 5_000)).toBe(true)
        // Once one of the five ends, the address gets a connection again.
        five[0]!.socket.destroy()
        yield* Effect.sleep("100 millis")
        const again = yield* rawConnection(url)
        again.socket.write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        expect(yield* until(() => answersIn(again.received()).length === 1, 5_000)).toBe(true)
      })
    )

    it.effect(
      "16 addresses presenting 400 invalid keys in a minute (25 each, under each one's 30): past 300 in all, each one's next invalid key blocks it; valid keys go on",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const token = yield* (yield* tenant()).key(["catalog:read"])
          yield* earlyInMinute
          const addresses = Array.from({ length: 16 }, (_, i) => `127.0.1.${i + 1}`)
          const answers = yield* Effect.all(
            addresses.map((address) =>
              Effect.forEach(Array.from({ length: 25 }), () => meFrom(url, address, bad), { concurrency: 1 })
            ),
            { concurrency: "unbounded" }
          )
          const all = answers.flat()
          const count = (status: number) => all.filter((s) => s === status).length
          console.log(`400 invalid keys from 16 addresses: ${count(401)} answered 401, ${count(429)} 429`)
          expect(count(401) + count(429)).toBe(400)
          expect(count(401)).toBeLessThanOrEqual(300 + 16)
          expect(count(429)).toBeGreaterThanOrEqual(400 - 300 - 16)
          // A blocked address is refused its valid key too; an address that presented no invalid key is not.
          const blocked = addresses.find((_, i) => answers[i]!.at(-1) === 429)!
          expect(yield* meFrom(url, blocked, token)).toBe(429)
          expect(yield* meFrom(url, "127.0.2.1", token)).toBe(200)
        }),
      { timeout: 60_000 }
    )

    it.effect("the metrics port runs with the same header time-out and per-address cap", () =>
      Effect.gen(function* () {
        const { metricsUrl } = yield* TestServer
        const metrics = metricsUrl!
        const scrape = yield* rawConnection(metrics)
        scrape.socket.write("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        expect(yield* until(() => scrape.received().startsWith("HTTP/1.1 200"), 5_000)).toBe(true)
        scrape.socket.destroy()
        const slowloris = yield* rawConnection(metrics)
        const started = Date.now()
        slowloris.socket.write("GET /metrics HTTP/1.1\r\nHost: x\r\n")
        yield* Effect.forkChild(
          Effect.ignore(
            Effect.repeat(
              Effect.andThen(
                Effect.sync(() => slowloris.socket.write(`X-Drip-${Date.now()}: 1\r\n`)),
                Effect.sleep("100 millis")
              ),
              { times: 100 }
            )
          )
        )
        expect(yield* until(slowloris.closed, 5_000)).toBe(true)
        expect(Date.now() - started).toBeLessThan(3_000)
        const held = yield* Effect.all(Array.from({ length: 5 }, () => rawConnection(metrics)))
        const sixth = yield* rawConnection(metrics)
        expect(yield* until(sixth.closed, 1_000)).toBe(true)
        expect(held.some((c) => c.closed())).toBe(false)
      })
    )
  }
)

const logs: Array<LoggedLine> = []

layer(TestServerWith({}, { AUTH_FAILURES_PER_MINUTE: "3" }, { logs }), { excludeTestServices: true, timeout: 60_000 })(
  "what the server logs of its clients",
  (it) => {
    it.effect(
      "each request's line names the client's address, the key's id and its company; a refused key's reason is logged at debug level, a throttled address once per window; never a secret",
      () =>
        Effect.gen(function* () {
          const { admin, url, tenant } = yield* TestServer
          const t = yield* tenant()
          const token = yield* t.key(["catalog:read"])
          const keyId = str((yield* call(url, "GET", "/me", { token })).body, "principal", "key_id")
          // The secret is all after `csk_<key id>_`: it may hold "_" itself (base64url).
          const secret = token.slice(`csk_${keyId}_`.length)
          expect(secret).toHaveLength(43)
          const lines = (message: string) => logs.filter((line) => line.message === message)
          const requestLine = (status: number) =>
            lines("request")
              .filter((line) => line.annotations.status === status)
              .at(-1)
          expect(requestLine(200)?.annotations).toMatchObject({
            path: "/api/v1/me",
            client: "127.0.0.1",
            key_id: keyId,
            company_id: t.companyId
          })

          // The right key id with a wrong secret, on a request with a body (admitted before its body).
          const wrong = `csk_${keyId}_${"B".repeat(43)}`
          expectError(
            yield* call(url, "POST", "/categories/upsert", { token: wrong, body: { external_id: "x", name: "X" } }),
            401,
            "invalid_credentials"
          )
          expect(requestLine(401)?.annotations).toMatchObject({ client: "127.0.0.1", key_id: null, company_id: null })
          expect(lines("authentication refused").at(-1)).toMatchObject({
            level: "DEBUG",
            annotations: { reason: "invalid_credentials", key_id: keyId }
          })
          yield* admin.revokeKey(keyId)
          // The admin is another client of the database: on PostgreSQL the server hears of the revocation
          // with its notification, milliseconds after the commit (auth-cache.e2e bounds it).
          let revoked = yield* call(url, "GET", "/me", { token })
          for (const started = Date.now(); revoked.status === 200 && Date.now() - started < 1_000;) {
            yield* Effect.sleep("5 millis")
            revoked = yield* call(url, "GET", "/me", { token })
          }
          expectError(revoked, 401, "key_revoked")
          expect(lines("authentication refused").at(-1)?.annotations).toMatchObject({
            reason: "key_revoked",
            key_id: keyId
          })

          // Past the budget of 3 from one address: one warning for the window, however many 429s follow.
          yield* earlyInMinute
          const statuses: Array<number> = []
          for (let i = 0; i < 10; i++) statuses.push(yield* meFrom(url, "127.0.3.1", bad))
          expect(statuses).toEqual([...Array(4).fill(401), ...Array(6).fill(429)])
          expect(lines("authentication throttled")).toEqual([
            {
              level: "WARN",
              message: "authentication throttled",
              annotations: expect.objectContaining({ client: "127.0.3.1" })
            }
          ])
          expect(JSON.stringify(logs)).not.toContain(secret)
          expect(JSON.stringify(logs)).not.toContain("B".repeat(43))
        })
    )
  }
)

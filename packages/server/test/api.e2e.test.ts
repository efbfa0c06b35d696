import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { connect } from "node:net"
import { asArray, at, detailPaths, errorOf, idOf, record, records, str } from "./Json.js"
import {
  call,
  earlyInMinute,
  expectError,
  freshKey,
  rawRequest,
  type Reply,
  TestServer,
  TestServerLive
} from "./TestServer.js"

/** Every error body is the spec's: request_id equal to the header, and an error with code and message. */

const writer = ["catalog:read", "catalog:write", "prices:read", "prices:write", "costs:read", "costs:write"]

layer(TestServerLive, { excludeTestServices: true, timeout: 60_000 })("HTTP API end to end", (it) => {
  describe("authentication", () => {
    it.effect("GET /me verifies the key and returns the principal", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const t = yield* tenant()
        const token = yield* t.key(["catalog:read", "prices:read"])
        const reply = yield* call(url, "GET", "/me", { token })
        expect(reply.status).toBe(200)
        expect(reply.headers.get("x-request-id")).toBe(at(reply.body, "request_id"))
        expect(at(reply.body, "principal")).toMatchObject({
          company: { id: t.companyId, currency: "EUR" },
          connection_id: t.connectionId,
          scopes: ["catalog:read", "prices:read"]
        })
        expect(reply.headers.get("ratelimit-limit")).toBe("120")
        expect(reply.headers.get("ratelimit-remaining")).toBe("119")
      })
    )

    it.effect("missing, malformed, unknown, revoked keys and disabled companies get 401", () =>
      Effect.gen(function* () {
        const { url, tenant, admin } = yield* TestServer
        const t = yield* tenant()
        expectError(yield* call(url, "GET", "/me"), 401, "missing_credentials")
        expectError(
          yield* call(url, "GET", "/me", { headers: { authorization: "Basic dXNlcjpwYXNz" } }),
          401,
          "invalid_credentials"
        )
        expectError(
          yield* call(url, "GET", "/me", {
            token: "csk_000000000000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
          }),
          401,
          "invalid_credentials"
        )
        const token = yield* t.key(["catalog:read"])
        yield* admin.revokeKey(token.split("_")[1]!)
        expectError(yield* call(url, "GET", "/me", { token }), 401, "key_revoked")
        const other = yield* t.key(["catalog:read"])
        yield* admin.updateCompany(t.companyId, { subscription_active: false })
        expectError(yield* call(url, "GET", "/me", { token: other }), 401, "subscription_inactive")
      })
    )

    it.effect("a custom domain admits only its company's keys (403 otherwise)", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const domain = `api-${Date.now()}.acme.example`
        const owner = yield* tenant({ domains: [domain] })
        const other = yield* tenant()
        const viaDomain = (token: string) =>
          rawRequest(url, "GET", "/api/v1/me", { authorization: `Bearer ${token}`, host: `${domain}:443` })
        const refused = yield* viaDomain(yield* other.key(["catalog:read"]))
        expect(refused.status).toBe(403)
        expect(JSON.parse(refused.body).error.code).toBe("domain_not_permitted")
        expect((yield* viaDomain(yield* owner.key(["catalog:read"]))).status).toBe(200)
      })
    )
  })

  describe("catalog writes", () => {
    it.effect("create, update with revisions, conflict, list pages and archive", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const token = yield* (yield* tenant()).key(writer)
        const category = yield* call(url, "POST", "/categories/upsert", {
          token,
          body: { external_id: "sofas", name: "Sofas" }
        })
        expect(category.status).toBe(200)
        expect(category.body).toMatchObject({
          outcome: "created",
          record: { external_id: "sofas", revision: 1, name: "Sofas" }
        })
        const product = yield* call(url, "POST", "/products/upsert", {
          token,
          body: {
            external_id: "p-1",
            name: "Sofa",
            category_ids: [{ external_id: "sofas" }],
            mode: "combined",
            price: "1299",
            cost: "700.5"
          }
        })
        expect(product.body).toMatchObject({
          outcome: "created",
          record: { revision: 1, state: "inactive", price: "1299.00", cost: "700.50", tax_model: "exclusive" }
        })
        const id = idOf(product.body)
        const updated = yield* call(url, "POST", "/products/upsert", {
          token,
          body: { external_id: "p-1", expected_revision: 1, name: "Sofa XL" }
        })
        expect(updated.body).toMatchObject({ outcome: "updated", record: { revision: 2, name: "Sofa XL" } })
        const conflict = yield* call(url, "POST", "/products/upsert", {
          token,
          body: { external_id: "p-1", expected_revision: 1, name: "Old" }
        })
        expectError(conflict, 409, "revision_conflict")
        expect(at(conflict.body, "error", "details")).toEqual({ current_revision: 2, expected_revision: 1 })
        const read = yield* call(url, "GET", `/products/${id}`, { token })
        expect(at(read.body, "record")).toMatchObject({ id, revision: 2, name: "Sofa XL" })
        for (let i = 0; i < 3; i++) {
          yield* call(url, "POST", "/products/upsert", {
            token,
            body: { external_id: `p-${i + 2}`, name: `P${i}`, category_ids: [idOf(category.body)] }
          })
        }
        const first = yield* call(url, "GET", "/products?limit=2", { token })
        expect(first.body).toMatchObject({ has_more: true, change_cursor: expect.any(String) })
        expect(at(first.body, "records")).toHaveLength(2)
        const second = yield* call(url, "GET", `/products?limit=2&cursor=${at(first.body, "next_cursor")}`, { token })
        expect(second.body).toMatchObject({ has_more: false, next_cursor: null })
        expect(at(second.body, "records")).toHaveLength(2)
        const byCategory = yield* call(url, "GET", `/products?category_id=${idOf(category.body)}&external_id=p-1`, {
          token
        })
        expect(records(byCategory.body).map((r) => r.id)).toEqual([id])
        const archived = yield* call(url, "DELETE", `/products/${id}`, { token, body: { expected_revision: 2 } })
        expect(archived.body).toMatchObject({ outcome: "updated", record: { state: "archived", revision: 3 } })
        const after = yield* call(url, "GET", "/products?limit=100", { token })
        expect(records(after.body).map((r) => r.id)).not.toContain(id)
      })
    )

    it.effect("a product that a live bundle lists is not archived: 409 record_in_use naming the bundle", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const token = yield* (yield* tenant()).key(writer)
        yield* call(url, "POST", "/categories/upsert", { token, body: { external_id: "sets", name: "Sets" } })
        const part = yield* call(url, "POST", "/products/upsert", {
          token,
          body: { external_id: "leg", name: "Leg", category_ids: [{ external_id: "sets" }] }
        })
        const bundle = yield* call(url, "POST", "/products/upsert", {
          token,
          body: {
            external_id: "kit",
            name: "Kit",
            kind: "bundle",
            category_ids: [{ external_id: "sets" }],
            components: [{ product_id: { external_id: "leg" }, quantity: 4 }]
          }
        })
        expect(bundle.status).toBe(200)
        const refused = yield* call(url, "DELETE", `/products/${idOf(part.body)}`, {
          token,
          body: { expected_revision: 1 }
        })
        expectError(refused, 409, "record_in_use")
        expect(at(refused.body, "error", "details")).toEqual({ bundle_ids: [idOf(bundle.body)] })
        expect(at((yield* call(url, "GET", `/products/${idOf(part.body)}`, { token })).body, "record")).toMatchObject({
          revision: 1,
          state: "inactive"
        })
      })
    )

    it.effect("validation failures list every failing path with 422", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const token = yield* (yield* tenant()).key(writer)
        const reply = yield* call(url, "POST", "/products/upsert", {
          token,
          body: { external_id: "", name: 7, details: { colour: "red" }, components: [{ product_id: "x", quantity: 0 }] }
        })
        expectError(reply, 422, "validation_failed")
        const paths = detailPaths(reply.body)
        expect(paths).toEqual(
          expect.arrayContaining(["$.external_id", "$.name", "$.details.colour", "$.components[0].quantity"])
        )
        const unresolved = yield* call(url, "POST", "/products/upsert", {
          token,
          body: { external_id: "p", name: "P", category_ids: [{ external_id: "nope" }] }
        })
        expectError(unresolved, 422, "unresolved_reference")
        expect(at(unresolved.body, "error", "details")).toEqual([
          { path: "$.category_ids[0]", message: expect.any(String) }
        ])
        const query = yield* call(url, "GET", "/products?limit=500&colour=red", { token })
        expectError(query, 422, "validation_failed")
        // Each detail names the field and its rule in plain words (no schema internals, no echo of the value).
        expect(new Set(asArray(query.body, "error", "details"))).toEqual(
          new Set([
            { path: "query.limit", message: "must be a whole number from 1 to 100" },
            { path: "query.colour", message: "is not an allowed property" }
          ])
        )
        const mode = yield* call(url, "GET", "/products?mode=everything", { token })
        expect(at(mode.body, "error", "details")).toEqual([
          { path: "query.mode", message: 'must be "catalog" or "prices"' }
        ])
        expectError(yield* call(url, "GET", "/products/not-a-uuid", { token }), 404, "not_found")
        expectError(
          yield* call(url, "GET", "/products/00000000-0000-4000-8000-000000000000", { token }),
          404,
          "not_found"
        )
        expectError(
          yield* call(url, "DELETE", "/products/00000000-0000-4000-8000-000000000000", {
            token,
            body: { expected_revision: 0 }
          }),
          422,
          "validation_failed"
        )
      })
    )

    it.effect("malformed JSON is 400, a non-JSON body 415, over 1 MB 413, unknown routes 404", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const token = yield* (yield* tenant()).key(writer)
        expectError(
          yield* call(url, "POST", "/categories/upsert", {
            token,
            raw: '{"external_id": ',
            headers: { "content-type": "application/json" }
          }),
          400,
          "malformed_json"
        )
        expectError(
          yield* call(url, "POST", "/categories/upsert", {
            token,
            raw: "external_id=x",
            headers: { "content-type": "application/x-www-form-urlencoded" }
          }),
          415,
          "unsupported_media_type"
        )
        expectError(
          yield* call(url, "POST", "/categories/upsert", {
            token,
            raw: "{}",
            headers: { "content-type": "text/plain" }
          }),
          415,
          "unsupported_media_type"
        )
        const huge = JSON.stringify({ external_id: "x", name: "n", description: "d".repeat(1_100_000) })
        expectError(
          yield* call(url, "POST", "/categories/upsert", {
            token,
            raw: huge,
            headers: { "content-type": "application/json" }
          }),
          413,
          "payload_too_large"
        )
        const chunked = yield* rawRequest(
          url,
          "POST",
          "/api/v1/categories/upsert",
          {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            "idempotency-key": freshKey(),
            "transfer-encoding": "chunked"
          },
          huge
        )
        expect(chunked.status).toBe(413)
        expect(JSON.parse(chunked.body).error.code).toBe("payload_too_large")
        expectError(yield* call(url, "GET", "/orders", { token }), 404, "route_not_found")
        expect((yield* call(url, "GET", "/me", { token })).status).toBe(200)
      })
    )

    it.effect(
      "found by fuzzing: deep JSON is 400 json_too_deep (was a 500), unparsable HTTP and huge query strings get the error body",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const token = yield* (yield* tenant()).key(writer)
          const deep = `{"external_id":"d","name":"D","x":${"[".repeat(20_000)}${"]".repeat(20_000)}}`
          expectError(
            yield* call(url, "POST", "/categories/upsert", {
              token,
              raw: deep,
              headers: { "content-type": "application/json" }
            }),
            400,
            "json_too_deep"
          )
          // Brackets inside strings are text, and 64 levels still reach validation.
          const text = JSON.stringify({ external_id: "t", name: "[".repeat(150) })
          expect(
            (yield* call(url, "POST", "/categories/upsert", {
              token,
              raw: text,
              headers: { "content-type": "application/json" }
            })).status
          ).toBe(200)
          const nested = `{"external_id":"n","name":"N","x":${"[".repeat(62)}${"]".repeat(62)}}`
          expectError(
            yield* call(url, "POST", "/categories/upsert", {
              token,
              raw: nested,
              headers: { "content-type": "application/json" }
            }),
            422,
            "validation_failed"
          )
          // A query string past node's 16 KB header limit, and bytes that are not HTTP at all.
          const long = yield* rawRequest(url, "GET", `/api/v1/categories?external_id=${"x".repeat(20_000)}`, {
            authorization: `Bearer ${token}`
          })
          expect({
            status: long.status,
            code: JSON.parse(long.body).error.code,
            id: long.headers["x-request-id"]
          }).toEqual({ status: 431, code: "request_headers_too_large", id: JSON.parse(long.body).request_id })
          const garbage = yield* Effect.promise(
            () =>
              new Promise<string>((resolve) => {
                const socket = connect(Number(new URL(url).port), "127.0.0.1", () =>
                  socket.end("GET /api/v1/me HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n")
                )
                let answer = ""
                socket.on("data", (chunk) => void (answer += chunk.toString()))
                socket.on("close", () => resolve(answer))
              })
          )
          expect(garbage).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/)
          expect(JSON.parse(garbage.slice(garbage.indexOf("\r\n\r\n") + 4)).error.code).toBe("malformed_request")
        })
    )

    it.effect("scopes: 403 without the write scope; prices and costs only with their read scopes", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const t = yield* tenant()
        const full = yield* t.key(writer)
        const cat = yield* call(url, "POST", "/categories/upsert", {
          token: full,
          body: { external_id: "c", name: "C" }
        })
        const p = yield* call(url, "POST", "/products/upsert", {
          token: full,
          body: {
            external_id: "p",
            mode: "combined",
            name: "P",
            category_ids: [idOf(cat.body)],
            price: "10",
            cost: "4"
          }
        })
        const reader = yield* t.key(["catalog:read"])
        expectError(
          yield* call(url, "POST", "/categories/upsert", { token: reader, body: { external_id: "d", name: "D" } }),
          403,
          "insufficient_scope"
        )
        const writeOnly = yield* t.key(["catalog:write"])
        const blind = yield* call(url, "POST", "/categories/upsert", {
          token: writeOnly,
          body: { external_id: "w", name: "Written blind" }
        })
        expect(blind.status).toBe(200)
        expect(at(blind.body, "record")).toEqual({
          id: expect.any(String),
          external_id: "w",
          revision: 1,
          updated_at: expect.any(String)
        })
        const plain = yield* call(url, "GET", `/products/${idOf(p.body)}`, { token: reader })
        expect(at(plain.body, "record")).not.toHaveProperty("price")
        expect(at(plain.body, "record")).not.toHaveProperty("cost")
        const priceReader = yield* t.key(["prices:read"])
        expectError(yield* call(url, "GET", "/products", { token: priceReader }), 403, "insufficient_scope")
        const prices = yield* call(url, "GET", "/products?mode=prices", { token: priceReader })
        expect(at(prices.body, "records", 0)).toMatchObject({ id: idOf(p.body), price: "10.00" })
        expect(at(prices.body, "records", 0)).not.toHaveProperty("cost")
        expect(at(prices.body, "records", 0)).not.toHaveProperty("name")
      })
    )

    it.effect("a key never sees another company's records nor another connection's mappings", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const a = yield* tenant()
        const b = yield* tenant()
        const tokenA = yield* a.key(writer)
        const tokenB = yield* b.key(writer)
        const cat = yield* call(url, "POST", "/categories/upsert", {
          token: tokenA,
          body: { external_id: "c", name: "Secret" }
        })
        expectError(yield* call(url, "GET", `/categories/${idOf(cat.body)}`, { token: tokenB }), 404, "not_found")
        expect(at((yield* call(url, "GET", "/categories", { token: tokenB })).body, "records")).toEqual([])
        const otherConnection = yield* a.newConnection
        const tokenA2 = yield* a.key(writer, { connectionId: otherConnection })
        const seen = yield* call(url, "GET", `/categories/${idOf(cat.body)}`, { token: tokenA2 })
        expect(at(seen.body, "record")).toMatchObject({ id: idOf(cat.body), external_id: null })
        expect(at((yield* call(url, "GET", "/categories?external_id=c", { token: tokenA2 })).body, "records")).toEqual(
          []
        )
      })
    )
  })

  describe("identifiers and query parameters", () => {
    it.effect("an uppercase uuid names the same record, in paths, References, filters and cursors", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const t = yield* tenant()
        const token = yield* t.key(writer)
        const cat = yield* call(url, "POST", "/categories/upsert", {
          token,
          body: { external_id: "c", name: "Chairs" }
        })
        const upper = str(cat.body, "record", "id").toUpperCase()
        const read = yield* call(url, "GET", `/categories/${upper}`, { token })
        expect({ status: read.status, id: idOf(read.body) }).toEqual({
          status: 200,
          id: idOf(cat.body)
        })
        const product = yield* call(url, "POST", "/products/upsert", {
          token,
          body: { external_id: "p", name: "Chair", category_ids: [upper] }
        })
        expect(product.status).toBe(200)
        expect(at(product.body, "record", "category_ids")).toEqual([idOf(cat.body)])
        const filtered = yield* call(url, "GET", `/products?category_id=${upper}`, { token })
        expect(records(filtered.body).map((r) => r.id)).toEqual([idOf(product.body)])
      })
    )

    it.effect("__proto__ is refused like any unknown query parameter (422 at query.__proto__)", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const t = yield* tenant()
        const token = yield* t.key(writer)
        for (const query of ["__proto__=1", "limit=5&__proto__=1", "__prot%6F__=1", "constructor=1"]) {
          const reply = yield* call(url, "GET", `/products?${query}`, { token })
          expectError(reply, 422, "validation_failed")
        }
        const proto = yield* call(url, "GET", "/products?__proto__=1", { token })
        expect(at(proto.body, "error", "details")).toEqual([
          { path: "query.__proto__", message: "is not an allowed property" }
        ])
        expect((yield* call(url, "GET", "/products?limit=5", { token })).status).toBe(200)
      })
    )

    it.effect(
      "an endpoint that takes no query refuses every parameter sent to it (422 at query.<name>), writing nothing",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const t = yield* tenant()
          const token = yield* t.key([...writer, "media:read", "media:write"])
          const category = record(
            (yield* call(url, "POST", "/categories/upsert", {
              token,
              body: { external_id: "c", name: "Chairs" }
            })).body,
            "record"
          )
          const product = record(
            (yield* call(url, "POST", "/products/upsert", {
              token,
              body: { external_id: "p", name: "Chair", category_ids: [category.id] }
            })).body,
            "record"
          )
          const refused = (reply: Reply, names: ReadonlyArray<string>) => {
            expectError(reply, 422, "validation_failed")
            expect(errorOf(reply.body).details).toEqual(
              names.map((name) => ({ path: `query.${name}`, message: "is not an allowed property" }))
            )
          }
          // A dry run asked for in the query rather than the body: refused, so no job is queued for real.
          const importBody = { records: [{ resource: "categories", body: { external_id: "d", name: "D" } }] }
          refused(yield* call(url, "POST", "/imports?dry_run=true", { token, body: importBody }), ["dry_run"])
          // The router also ends a path at `;` (and `#`), where the framework reads no query.
          refused(yield* call(url, "POST", "/imports;dry_run=true", { token, body: importBody }), ["dry_run"])
          refused(
            yield* call(url, "POST", "/categories/upsert?x=1", { token, body: { external_id: "e", name: "E" } }),
            ["x"]
          )
          refused(
            yield* call(url, "DELETE", `/products/${product.id}?force=1`, { token, body: { expected_revision: 1 } }),
            ["force"]
          )
          expect(at((yield* call(url, "GET", "/imports", { token })).body, "records")).toEqual([])
          expect(records((yield* call(url, "GET", "/categories", { token })).body).map((r) => r.external_id)).toEqual([
            "c"
          ])
          expect(at((yield* call(url, "GET", `/products/${product.id}`, { token })).body, "record", "revision")).toBe(1)
          // Reads: each name is listed once, in the order sent.
          refused(yield* call(url, "GET", `/products/${product.id}?mode=prices&x=1&mode=catalog`, { token }), [
            "mode",
            "x"
          ])
          const unknownId = "0190a0b0-0000-7000-8000-000000000000"
          for (const path of [
            "/me",
            `/jobs/${unknownId}`,
            `/imports/${unknownId}`,
            `/media/${unknownId}`,
            `/media/${unknownId}/content`,
            `/inventory/${unknownId}`
          ]) {
            refused(yield* call(url, "GET", `${path}?x=1`, { token }), ["x"])
          }
          for (const path of [`/jobs/${unknownId}/retry`, "/inventory"]) {
            refused(yield* call(url, "POST", `${path}?x=1`, { token, body: {} }), ["x"])
          }
          refused(yield* call(url, "GET", "/me;x=1", { token }), ["x"])
          refused(yield* call(url, "GET", "/products;limit=5", { token }), ["limit"])
          // The key is checked first, as on the lists; a path id that is not a uuid is still 404.
          expectError(yield* call(url, "GET", "/me?x=1"), 401, "missing_credentials")
          expectError(
            yield* call(url, "POST", "/imports?dry_run=true", { body: importBody }),
            401,
            "missing_credentials"
          )
          // A body declared over the limit is refused by its size first, as on every write.
          const oversized = { token, raw: " ".repeat(1_100_000), headers: { "content-type": "application/json" } }
          expectError(yield* call(url, "POST", "/imports?dry_run=true", oversized), 413, "payload_too_large")
          expectError(yield* call(url, "GET", "/products/not-a-uuid?x=1", { token }), 404, "not_found")
          // Without the query the same requests are answered as ever; the probes take any query.
          expect((yield* call(url, "GET", "/me", { token })).status).toBe(200)
          expect((yield* call(url, "GET", `/products/${product.id}`, { token })).status).toBe(200)
          expect((yield* call(url, "GET", `/jobs/${unknownId}`, { token })).status).toBe(404)
          for (const probe of ["/health?check=lb", "/ready?x=1"])
            expect((yield* Effect.promise(() => fetch(`${url}${probe}`))).status).toBe(200)
        })
    )
  })

  describe("idempotency", () => {
    it.effect("the same key and body replays; another body is 409; the header is required and validated", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const token = yield* (yield* tenant()).key(writer)
        const key = freshKey()
        const first = yield* call(url, "POST", "/categories/upsert", {
          token,
          idempotencyKey: key,
          body: { external_id: "c", name: "C" }
        })
        const again = yield* call(url, "POST", "/categories/upsert", {
          token,
          idempotencyKey: key,
          body: { name: "C", external_id: "c" }
        })
        expect(again.status).toBe(200)
        expect(again.body).toMatchObject({ outcome: "created", replayed: true, record: at(first.body, "record") })
        expect(at(again.body, "request_id")).not.toBe(at(first.body, "request_id"))
        expect(again.headers.get("x-request-id")).toBe(at(again.body, "request_id"))
        expectError(
          yield* call(url, "POST", "/categories/upsert", {
            token,
            idempotencyKey: key,
            body: { external_id: "c", name: "D" }
          }),
          409,
          "idempotency_key_reused"
        )
        expectError(
          yield* call(url, "POST", "/categories/upsert", {
            token,
            idempotencyKey: null,
            body: { external_id: "c", name: "D" }
          }),
          422,
          "idempotency_key_invalid"
        )
        expectError(
          yield* call(url, "POST", "/categories/upsert", {
            token,
            idempotencyKey: "short",
            body: { external_id: "c", name: "D" }
          }),
          422,
          "idempotency_key_invalid"
        )
        const list = yield* call(url, "GET", "/categories", { token })
        expect(at(list.body, "records")).toHaveLength(1)
      })
    )

    it.effect("a retry of one write spelled otherwise (case, slashes, escapes) is replayed, not refused", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const token = yield* (yield* tenant()).key(writer)
        const key = freshKey()
        const body = { external_id: "c", name: "C" }
        const first = yield* call(url, "POST", "/categories/upsert", { token, idempotencyKey: key, body })
        expect(first.status).toBe(200)
        for (const spelling of ["/categories/upsert/", "/Categories/UPSERT", "/categories//upsert"]) {
          const again = yield* call(url, "POST", spelling, { token, idempotencyKey: key, body })
          expect({ spelling, status: again.status, replayed: at(again.body, "replayed") }).toEqual({
            spelling,
            status: 200,
            replayed: true
          })
          expect(at(again.body, "record")).toEqual(at(first.body, "record"))
        }
        // Another record's path is another operation: the same key is refused there.
        const product = yield* call(url, "POST", "/products/upsert", {
          token,
          body: { external_id: "p", name: "P", category_ids: [idOf(first.body)] }
        })
        const id = idOf(product.body)
        const archive = { token, idempotencyKey: freshKey(), body: { expected_revision: 1 } }
        expect((yield* call(url, "DELETE", `/products/${id}`, archive)).status).toBe(200)
        // The id with its first letter escaped: the router decodes it to the same parameter.
        const escaped = `/products/%${id.charCodeAt(0).toString(16)}${id.slice(1)}`
        const replay = yield* call(url, "DELETE", escaped, archive)
        expect({ status: replay.status, replayed: at(replay.body, "replayed") }).toEqual({
          status: 200,
          replayed: true
        })
        const other = yield* call(url, "POST", "/products/upsert", {
          token,
          body: { external_id: "q", name: "Q", category_ids: [idOf(first.body)] }
        })
        expectError(yield* call(url, "DELETE", `/products/${idOf(other.body)}`, archive), 409, "idempotency_key_reused")
      })
    )

    it.effect("a replay never shows more than the replaying key may read, nor skips its write scopes", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const t = yield* tenant()
        const full = yield* t.key(writer)
        const cat = yield* call(url, "POST", "/categories/upsert", {
          token: full,
          body: { external_id: "c", name: "C" }
        })
        const key = freshKey()
        const body = {
          external_id: "p",
          mode: "combined",
          name: "P",
          category_ids: [idOf(cat.body)],
          price: "99",
          cost: "40"
        }
        expect((yield* call(url, "POST", "/products/upsert", { token: full, idempotencyKey: key, body })).status).toBe(
          200
        )
        const reader = yield* t.key(["catalog:read"])
        expectError(
          yield* call(url, "POST", "/products/upsert", { token: reader, idempotencyKey: key, body }),
          403,
          "insufficient_scope"
        )
        const noCosts = yield* t.key(["catalog:read", "catalog:write", "prices:read", "prices:write", "costs:write"])
        const replay = yield* call(url, "POST", "/products/upsert", { token: noCosts, idempotencyKey: key, body })
        expectError(replay, 409, "idempotency_key_reused")
        expect(replay.text).not.toContain("40.00")
      })
    )

    it.effect("two concurrent requests with one key: one runs, the other is refused or replayed, one record", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const token = yield* (yield* tenant()).key(writer)
        const key = freshKey()
        const body = { external_id: "race", name: "Race" }
        const replies = yield* Effect.all(
          Array.from({ length: 6 }, () =>
            call(url, "POST", "/categories/upsert", { token, idempotencyKey: key, body })
          ),
          { concurrency: "unbounded" }
        )
        const created = replies.filter((r) => r.status === 200 && at(r.body, "replayed") !== true)
        expect(created).toHaveLength(1)
        for (const r of replies) {
          if (r.status === 409) expect(at(r.body, "error", "code")).toBe("idempotency_in_progress")
          else expect(r.status).toBe(200)
        }
        expect(at((yield* call(url, "GET", "/categories", { token })).body, "records")).toHaveLength(1)
      })
    )
  })

  it.effect("rate limit: the 121st request of a key within a minute gets 429 with Retry-After", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      const token = yield* (yield* tenant()).key(["catalog:read"])
      yield* earlyInMinute
      const replies = yield* Effect.all(
        Array.from({ length: 120 }, () => call(url, "GET", "/me", { token })),
        { concurrency: 8 }
      )
      expect(replies.every((r) => r.status === 200)).toBe(true)
      const refused = yield* call(url, "GET", "/me", { token })
      expectError(refused, 429, "rate_limited")
      const retryAfter = Number(refused.headers.get("retry-after"))
      expect(retryAfter).toBeGreaterThanOrEqual(1)
      expect(at(refused.body, "error", "retry_after")).toBe(retryAfter)
      expect(refused.headers.get("ratelimit-remaining")).toBe("0")
    })
  )
})

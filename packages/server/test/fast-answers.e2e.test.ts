import { RouteTable } from "@catalog-sync/adapter-http"
import { expect, layer } from "@effect/vitest"
import { Arbitrary, Effect, Layer, Schema } from "effect"
import * as fc from "fast-check"
import { byRouter, comparable, expectSameAnswer, routerOnRequest } from "./SameAnswer.js"
import { at, errorOf, record, str } from "./Json.js"
import { call, earlyInMinute, expectError, type Reply, TestServer, TestServerWith } from "./TestServer.js"

const writer = ["catalog:read", "catalog:write", "prices:read", "prices:write"]
const { fastAnswered, layer: answering } = routerOnRequest()

/** `path` (from the server's root) with `headers`, as a connector sends it. */
const send = (url: string, method: string, path: string, headers: Record<string, string>) =>
  Effect.promise(async (): Promise<Reply> => {
    const response = await fetch(`${url}${path}`, { method, headers })
    const text = await response.text()
    let body: unknown = undefined
    try {
      body = JSON.parse(text)
    } catch {
      body = undefined
    }
    return { status: response.status, headers: response.headers, body, text }
  })

/** The same request answered fast and by HttpApi's route. */
const bothWays = (url: string, method: string, path: string, headers: Record<string, string>) =>
  Effect.all([send(url, method, path, headers), send(url, method, path, { ...headers, ...byRouter })])

const routes = RouteTable.make().routes

/**
 * The values a Schema describes, as a fast-check arbitrary (Effect 3's `Arbitrary.make`; Effect 4 ships no
 * fast-check): Effect's schema-derived sample for a drawn seed and size.
 */
const fromSchema = <S extends Schema.Top>(schema: S): fc.Arbitrary<S["Type"]> => {
  const arbitrary = Arbitrary.schema(schema)
  return fc
    .tuple(fc.integer(), fc.nat({ max: 10 }))
    .map(([seed, size]) => Effect.runSync(Arbitrary.sampleEffect(arbitrary, { seed, size, count: 1 }))[0]!)
}

/** Queries of an endpoint: generated from its own schema (encoded as a client sends it), or ones it refuses. */
const queriesOf = (route: RouteTable.Route, known: ReadonlyArray<string>) => {
  const declared = route.endpoint.query
  if (declared === undefined) return fc.constantFrom("", "?", "?limit=5", ";x=1")
  const schema = declared as unknown as Schema.Codec<Record<string, unknown>, Record<string, string>>
  const valid = fromSchema(schema).map((value) => `?${new URLSearchParams(Schema.encodeSync(schema)(value))}`)
  return fc.oneof(
    valid,
    fc.constantFrom("", "?", ...known),
    fc
      .tuple(valid, fc.constantFrom("&limit=0", "&limit=x", "&x=1", "&limit=5&limit=6", "&__proto__=1"))
      .map(([query, extra]) => `${query}${extra}`)
  )
}

layer(TestServerWith().pipe(Layer.provide(answering)), { excludeTestServices: true, timeout: 180_000 })(
  "fast answers",
  (it) => {
    it.effect(
      "every endpoint with a fast answer answers generated requests as HttpApi's route does: status, headers, body",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const mine = yield* tenant()
          const token = yield* mine.key(writer)
          const category = at(
            (yield* call(url, "POST", "/categories/upsert", {
              token,
              body: { external_id: "c1", name: "C1" }
            })).body,
            "record"
          )
          const product = at(
            (yield* call(url, "POST", "/products/upsert", {
              token,
              body: {
                external_id: "p1",
                name: "P1",
                mode: "combined",
                price: "10",
                category_ids: [{ external_id: "c1" }]
              }
            })).body,
            "record"
          )
          const cursor = str((yield* call(url, "GET", "/changes", { token })).body, "next_cursor")
          // The endpoints the server has a fast answer for: those it was asked about.
          for (const route of routes.filter((route) => route.endpoint.method === "GET"))
            yield* send(url, "GET", route.template.replace(":id", str(product, "id")), {})
          expect([...fastAnswered].sort()).toEqual(expect.arrayContaining(["changes.changes", "products.get"]))
          const fastRoutes = routes.filter((route) => fastAnswered.has(`${route.group}.${route.name}`))
          const other = yield* (yield* tenant()).key(writer)
          const writeOnly = yield* mine.key(["catalog:write"])
          for (const route of fastRoutes) {
            // A key of its own per endpoint, within its rate limit (120 a minute) for both answers.
            const own = yield* mine.key(writer)
            const requests = fc.record({
              method: fc.constantFrom("GET", "GET", "HEAD"),
              id: fc.constantFrom(
                str(product, "id"),
                str(category, "id"),
                str(product, "id").toUpperCase(),
                "0190aaaa-0000-7000-8000-000000000000",
                "not-a-uuid"
              ),
              shape: fc.constantFrom("as declared", "as declared", "trailing slash", "upper case"),
              query: queriesOf(route, [`?cursor=${cursor}`, "?cursor=c2_0&limit=1", "?cursor=c1_0"]),
              key: fc.constantFrom<string | undefined>(own, own, own, undefined, "cs_live_not_a_key", other, writeOnly)
            })
            const samples = fc.sample(requests, { numRuns: 24, seed: 37 })
            for (const { id, key, method, query, shape } of samples) {
              const declared = route.template.replace(":id", id)
              const path =
                shape === "trailing slash" ? `${declared}/` : shape === "upper case" ? declared.toUpperCase() : declared
              const headers: Record<string, string> = key === undefined ? {} : { authorization: `Bearer ${key}` }
              const [fast, routed] = yield* bothWays(url, method, `${path}${query}`, headers)
              expect([method, path, query, comparable(fast)]).toEqual([method, path, query, comparable(routed)])
            }
          }
        })
    )

    it.effect(
      "a key over its rate limit is refused as the route refuses it: 429 with Retry-After and the RateLimit headers",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const token = yield* (yield* tenant()).key(writer)
          yield* earlyInMinute
          // A key's limit is 120 requests a minute (spec 8).
          yield* Effect.all(
            Array.from({ length: 120 }, () => call(url, "GET", "/changes?cursor=c2_0", { token })),
            { concurrency: 8 }
          )
          const [fast, routed] = yield* bothWays(url, "GET", "/api/v1/changes?cursor=c2_0", {
            authorization: `Bearer ${token}`
          })
          // The seconds to wait are read from the clock at each request: compared apart from the rest.
          const clockless = (reply: Reply) => {
            const { message, retry_after, ...error } = errorOf(reply.body)
            expect([retry_after, message]).toEqual([
              Number(reply.headers.get("retry-after")),
              `rate limit of 120 requests per minute reached; retry after ${retry_after} s`
            ])
            return { ...comparable(reply), body: { ...record(reply.body), request_id: "", error } }
          }
          expect(clockless(fast)).toEqual(clockless(routed))
          expectError(fast, 429, "rate_limited")
          expect(fast.headers.get("ratelimit-remaining")).toBe("0")
        })
    )

    it.effect("a record is read in any letter case of its id and only in its own company and resource", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const token = yield* (yield* tenant()).key(writer)
        const category = at(
          (yield* call(url, "POST", "/categories/upsert", {
            token,
            body: { external_id: "c1", name: "C1" }
          })).body,
          "record"
        )
        const auth = { authorization: `Bearer ${token}` }
        const read = expectSameAnswer(
          yield* bothWays(url, "GET", `/api/v1/categories/${str(category, "id").toUpperCase()}`, auth)
        )
        expect(read).toMatchObject({ status: 200, body: { record: category } })
        expectError(
          expectSameAnswer(yield* bothWays(url, "GET", `/api/v1/collections/${str(category, "id")}`, auth)),
          404,
          "not_found"
        )
        const other = yield* (yield* tenant()).key(writer)
        expectError(
          expectSameAnswer(
            yield* bothWays(url, "GET", `/api/v1/categories/${str(category, "id")}`, {
              authorization: `Bearer ${other}`
            })
          ),
          404,
          "not_found"
        )
      })
    )
  }
)

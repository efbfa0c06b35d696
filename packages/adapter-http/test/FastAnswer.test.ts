import { Api, type Authentication } from "@catalog-sync/contract"
import { CatalogService, ChangeFeed, Principal } from "@catalog-sync/core"
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import { Cause, Context, Effect, Exit, Layer, Option, Redacted, Schema } from "effect"
import { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import {
  HttpApi,
  HttpApiBuilder,
  HttpApiEndpoint,
  HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSecurity
} from "effect/http-api"
import fc from "fast-check"
import { CatalogFastAnswers } from "../src/Catalog/Http.js"
import { ChangesFastAnswers } from "../src/Changes/Http.js"
import { type FastAnswer, fastAnswer, FastAnswers } from "../src/FastAnswer.js"
import * as RouteTable from "../src/RouteTable.js"
import { effectProp } from "./props.js"

// An API of its own, with what the contract's endpoints may come to have: a security middleware of two
// schemes on the group, another on an endpoint, one that reads the query, path and query schemas that
// transform.

class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  { scheme: Schema.String },
  { httpApiStatus: 401 }
) {}
class Refused extends Schema.TaggedError<Refused>()("Refused", {}, { httpApiStatus: 403 }) {}
class Missing extends Schema.TaggedError<Missing>()("Missing", {}, { httpApiStatus: 404 }) {}
class Other extends Schema.TaggedError<Other>()("Other", {}, { httpApiStatus: 409 }) {}

class Caller extends Context.Service<Caller, string>()("test/Caller") {}
class Level extends Context.Service<Level, number>()("test/Level") {}

class KeyCheck extends HttpApiMiddleware.Service<KeyCheck, { provides: Caller }>()("test/KeyCheck", {
  error: Unauthorized,
  security: { bearer: HttpApiSecurity.bearer, key: HttpApiSecurity.apiKey({ key: "x-key" }) }
}) {}
class Clearance extends HttpApiMiddleware.Service<Clearance, { provides: Level }>()("test/Clearance", {
  error: Refused,
  security: { key: HttpApiSecurity.apiKey({ key: "x-clearance" }) }
}) {}
class Trace extends HttpApiMiddleware.Service<Trace>()("test/Trace", {
  error: Unauthorized,
  security: { key: HttpApiSecurity.apiKey({ key: "x-trace", in: "query" }) }
}) {}
class Plain extends HttpApiMiddleware.Service<Plain>()("test/Plain") {}

const Thing = Schema.Struct({ id: Schema.Number, caller: Schema.String, level: Schema.Number, limit: Schema.Number })

const ThingsApi = HttpApiGroup.make("things")
  .add(
    HttpApiEndpoint.get("get", "/things/:id", {
      params: { id: Schema.FiniteFromString },
      query: { limit: Schema.optional(Schema.FiniteFromString) },
      success: Thing,
      error: Missing
    }).middleware(Clearance)
  )
  .add(HttpApiEndpoint.post("create", "/things", { payload: Schema.Struct({ name: Schema.String }) }))
  .middleware(Trace)
  .middleware(KeyCheck)

const TestApi = HttpApi.make("test")
  .add(ThingsApi)
  .add(HttpApiGroup.make("plain").add(HttpApiEndpoint.get("get", "/plain")).middleware(Plain))
  .prefix("/api")

/** What the middlewares were asked, in order. */
const asked: Array<string> = []

const MiddlewaresLive = Layer.mergeAll(
  Layer.succeed(
    KeyCheck,
    KeyCheck.of({
      bearer: (effect, { credential }) => {
        asked.push(`bearer ${Redacted.value(credential)}`)
        return Redacted.value(credential) === "good"
          ? Effect.provideService(effect, Caller, "by bearer")
          : Effect.fail(new Unauthorized({ scheme: "bearer" }))
      },
      key: (effect, { credential }) => {
        asked.push(`key ${Redacted.value(credential)}`)
        return Redacted.value(credential) === "good"
          ? Effect.provideService(effect, Caller, "by key")
          : Effect.fail(new Unauthorized({ scheme: "key" }))
      }
    })
  ),
  Layer.succeed(
    Clearance,
    Clearance.of({
      key: (effect, { credential }) => {
        asked.push(`clearance ${Redacted.value(credential)}`)
        const level = Number(Redacted.value(credential))
        return Number.isInteger(level) && level > 0
          ? Effect.provideService(effect, Level, level)
          : Effect.fail(new Refused())
      }
    })
  ),
  Layer.succeed(
    Trace,
    Trace.of({
      // Lets a request without a trace id through (an absent key reads as ""); refuses a bad one.
      key: (effect, { credential }) => {
        asked.push(`trace ${Redacted.value(credential)}`)
        return Redacted.value(credential) === "bad" ? Effect.fail(new Unauthorized({ scheme: "trace" })) : effect
      }
    })
  )
)

/** The handler the group hands to HttpApiBuilder, and the fast answer. */
const getThing = ({
  params,
  query
}: {
  readonly params: { readonly id: number }
  readonly query: { readonly limit?: number | undefined }
}) =>
  Effect.gen(function* () {
    asked.push(`handler ${params.id}`)
    if (params.id === 404) return yield* new Missing()
    return HttpServerResponse.jsonUnsafe({
      id: params.id,
      caller: yield* Caller,
      level: yield* Level,
      limit: query.limit ?? 10
    })
  })

const { handler: routed } = HttpRouter.toWebHandler(
  HttpApiBuilder.layer(TestApi).pipe(
    Layer.provide(
      HttpApiBuilder.group(TestApi, "things", (handlers) =>
        handlers.handle("get", getThing).handle("create", () => Effect.void)
      )
    ),
    Layer.provide(HttpApiBuilder.group(TestApi, "plain", (handlers) => handlers.handle("get", () => Effect.void))),
    Layer.provide(
      Layer.succeed(
        Plain,
        Plain.of((effect) => effect)
      )
    ),
    Layer.provide(MiddlewaresLive),
    Layer.provide(HttpServer.layerServices)
  ),
  { disableLogger: true }
)

const testRoutes = RouteTable.make([], TestApi)
const fast = Effect.runSync(fastAnswer(TestApi, "things", "get", getThing).pipe(Effect.provide(MiddlewaresLive)))

interface Asked {
  readonly headers: Record<string, string>
  readonly url: string
  /** Whether its path and query decode with the endpoint's schemas. */
  readonly decodes: boolean
}

/** The answer of HttpApi's router: status, body and what the middlewares and handler were asked. */
const byRouter = ({ headers, url }: Asked) =>
  Effect.promise(async () => {
    asked.length = 0
    const response = await routed(new Request(`http://localhost${url}`, { headers }))
    const body: unknown = await response.json().catch(() => null)
    return { status: response.status, body, asked: [...asked] }
  })

/** The fast answer, rendered as HttpApi renders its success or declared error; undefined when it leaves the request to the router. */
const byFastAnswer = ({ headers, url }: Asked) =>
  Effect.gen(function* () {
    asked.length = 0
    const request = HttpServerRequest.fromWeb(new Request(`http://localhost${url}`, { headers }))
    const answering = fast.answer(request, testRoutes.find("GET", url)!)
    if (answering === undefined) return undefined
    const exit = yield* Effect.exit(Effect.provideService(answering, HttpServerRequest.HttpServerRequest, request))
    const rendered = Exit.isSuccess(exit)
      ? HttpServerResponse.toWeb(exit.value)
      : new Response(JSON.stringify(encodeFailure(failureOf(exit))), {
          status: { Unauthorized: 401, Refused: 403, Missing: 404 }[failureOf(exit)._tag]
        })
    const body: unknown = yield* Effect.promise(() => rendered.json())
    return { status: rendered.status, body, asked: [...asked] }
  })

const encodeFailure = Schema.encodeSync(Schema.Union([Unauthorized, Refused, Missing]))

const failureOf = <E>(exit: Exit.Exit<unknown, E>): E => {
  const failure = Exit.isSuccess(exit) ? Option.none() : Cause.findErrorOption(exit.cause)
  if (Option.isNone(failure)) throw new Error("expected a failure")
  return failure.value
}

const aRequest: fc.Arbitrary<Asked> = fc
  .record({
    id: fc.constantFrom("1", "42", "404", "x", "1.5"),
    limit: fc.constantFrom(undefined, "5", "x"),
    trace: fc.constantFrom(undefined, "bad", "t1"),
    authorization: fc.constantFrom(undefined, "Bearer good", "Bearer bad"),
    key: fc.constantFrom(undefined, "good", "bad"),
    clearance: fc.constantFrom(undefined, "2", "0")
  })
  .map(({ authorization, clearance, id, key, limit, trace }) => {
    const query = new URLSearchParams()
    if (limit !== undefined) query.set("limit", limit)
    if (trace !== undefined) query.set("x-trace", trace)
    const headers: Record<string, string> = {}
    if (authorization !== undefined) headers.authorization = authorization
    if (key !== undefined) headers["x-key"] = key
    if (clearance !== undefined) headers["x-clearance"] = clearance
    const search = query.toString()
    return {
      url: `/api/things/${id}${search === "" ? "" : `?${search}`}`,
      headers,
      decodes: id !== "x" && limit !== "x"
    }
  })

describe("a fast answer", () => {
  effectProp(
    "answers as HttpApi's router does: the same middlewares asked in the same order, the same handler, the same answer",
    [aRequest],
    ([request]) =>
      Effect.gen(function* () {
        const viaRouter = yield* byRouter(request)
        const viaFastAnswer = yield* byFastAnswer(request)
        // A request whose path or query does not decode is the router's to answer, whole.
        if (request.decodes) expect(viaFastAnswer).toEqual(viaRouter)
        else expect(viaFastAnswer).toBeUndefined()
      }),
    { fastCheck: { numRuns: 300 } }
  )

  it.effect("reads its path and query with the endpoint's own schemas, and leaves what they refuse to the router", () =>
    Effect.gen(function* () {
      const headers = { authorization: "Bearer good", "x-clearance": "3" }
      expect(yield* byFastAnswer({ url: "/API/things/007?limit=5", headers, decodes: true })).toMatchObject({
        status: 200,
        body: { id: 7, caller: "by bearer", level: 3, limit: 5 }
      })
      for (const url of ["/api/things/seven", "/api/things/7?limit=many"])
        expect(yield* byFastAnswer({ url, headers, decodes: false })).toBeUndefined()
    })
  )

  it("fails with the endpoint's declared errors, its middlewares' among them, and no other", () => {
    type Failure = Effect.Error<NonNullable<ReturnType<typeof fast.answer>>>
    // The endpoint's own and its middlewares' (its group's among them).
    expectTypeOf<Failure>().toEqualTypeOf<Missing | Refused | Unauthorized>()
    // @ts-expect-error: a handler failing with an error its endpoint does not declare is not a fast answer.
    fastAnswer(TestApi, "things", "get", () => Effect.as(Effect.fail(new Other()), HttpServerResponse.empty()))
  })

  it("cannot be declared on an endpoint whose middleware it cannot run, or that takes a body", () => {
    expect(() =>
      Effect.runSync(
        fastAnswer(TestApi, "plain", "get", () => Effect.die("unreached")).pipe(
          Effect.provideService(
            Plain,
            Plain.of((effect) => effect)
          )
        )
      )
    ).toThrow("cannot run the middleware test/Plain")
    expect(() =>
      Effect.runSync(
        fastAnswer(TestApi, "things", "create", () => Effect.die("unreached")).pipe(Effect.provide(MiddlewaresLive))
      )
    ).toThrow("takes a body")
  })
})

/** An implementation for every security middleware the contract declares, writing down which scheme ran. */
const contractMiddlewares = (ran: Array<string>) => {
  const principal = { connectionId: "the-connection" } as unknown as Principal.Principal
  let context = Context.empty()
  for (const route of RouteTable.routesOf(Api))
    for (const key of route.middlewares)
      if (HttpApiMiddleware.isSecurity(key))
        context = Context.add(
          context,
          key,
          Object.fromEntries(
            Object.keys(key.security).map((scheme) => [
              scheme,
              (effect: Effect.Effect<HttpServerResponse.HttpServerResponse>) =>
                Effect.andThen(
                  Effect.sync(() => ran.push(`${key.key} ${scheme}`)),
                  Effect.provideService(effect, Principal.CurrentPrincipal, principal)
                )
            ])
          ) as never
        )
  return context as Context.Context<Authentication>
}

describe("the fast answers of the API", () => {
  it.effect("run every middleware the contract declares on their endpoint, then the endpoint's handler", () =>
    Effect.gen(function* () {
      const ran: Array<string> = []
      const handled: Array<string> = []
      const catalog = {
        getJson: (resource: string) => Effect.sync(() => (handled.push(resource), `{"id":"r"}`)),
        listJson: (resource: string) =>
          Effect.sync(() => (handled.push(resource), { records: "[]", next_cursor: null, has_more: false }))
      } as unknown as typeof CatalogService.CatalogService.Service
      const feed = {
        read: () => Effect.sync(() => (handled.push("changes"), { records: [], next_cursor: "c2_0", has_more: false }))
      } as unknown as typeof ChangeFeed.ChangeFeed.Service
      const answers: ReadonlyArray<FastAnswer<unknown>> = yield* FastAnswers.pipe(
        Effect.provide(FastAnswers.layer(CatalogFastAnswers, ChangesFastAnswers)),
        Effect.provide(contractMiddlewares(ran)),
        Effect.provide(
          Layer.mergeAll(
            Layer.succeed(CatalogService.CatalogService, catalog),
            Layer.succeed(ChangeFeed.ChangeFeed, feed)
          )
        )
      )
      expect(answers.length).toBeGreaterThan(0)
      const routes = RouteTable.make()
      for (const answer of answers) {
        const route = routes.routes.find((r) => r.group === answer.group && r.name === answer.endpoint)!
        const url = route.template.replace(":id", "0190aaaa-0000-7000-8000-00000000000f")
        const request = HttpServerRequest.fromWeb(new Request(`http://localhost${url}`))
        ran.length = 0
        handled.length = 0
        const response = yield* Effect.provideService(
          answer.answer(request, routes.find("GET", url)!)!,
          HttpServerRequest.HttpServerRequest,
          request
        )
        expect([route.template, response.status]).toEqual([route.template, 200])
        // A middleware that is not a security one would have failed the layer: a fast answer cannot run it.
        expect([route.template, ran]).toEqual([
          route.template,
          route.middlewares.map(
            (key) => `${key.key} ${Object.keys((key as HttpApiMiddleware.AnyServiceSecurity).security)[0]}`
          )
        ])
        expect(handled).toHaveLength(1)
      }
    })
  )
})

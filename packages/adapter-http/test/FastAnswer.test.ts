import {
  HttpApi,
  HttpApiBuilder,
  HttpApiEndpoint,
  HttpApiError,
  HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSchema,
  HttpApiSecurity,
  HttpServer,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import { Api, type Authentication } from "@catalog-sync/contract"
import { CatalogService, ChangeFeed, type Principal } from "@catalog-sync/core"
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Redacted, Schema } from "effect"
import * as fc from "effect/FastCheck"
import { CatalogFastAnswers } from "../src/Catalog/Http.js"
import { ChangesFastAnswers } from "../src/Changes/Http.js"
import { type FastAnswer, fastAnswer, FastAnswers } from "../src/FastAnswer.js"
import * as RouteTable from "../src/RouteTable.js"

// An API of its own, with what the contract's endpoints may come to have: a security middleware of two
// schemes on the group, another on an endpoint, an optional one, path and query schemas that transform.

class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  { scheme: Schema.String },
  HttpApiSchema.annotations({ status: 401 })
) {}
class Refused extends Schema.TaggedError<Refused>()("Refused", {}, HttpApiSchema.annotations({ status: 403 })) {}
class Missing extends Schema.TaggedError<Missing>()("Missing", {}, HttpApiSchema.annotations({ status: 404 })) {}
class Other extends Schema.TaggedError<Other>()("Other", {}, HttpApiSchema.annotations({ status: 409 })) {}

class Caller extends Context.Tag("test/Caller")<Caller, string>() {}
class Level extends Context.Tag("test/Level")<Level, number>() {}

class KeyCheck extends HttpApiMiddleware.Tag<KeyCheck>()("test/KeyCheck", {
  failure: Unauthorized,
  provides: Caller,
  security: { bearer: HttpApiSecurity.bearer, key: HttpApiSecurity.apiKey({ key: "x-key" }) }
}) {}
class Clearance extends HttpApiMiddleware.Tag<Clearance>()("test/Clearance", {
  failure: Refused,
  provides: Level,
  security: { key: HttpApiSecurity.apiKey({ key: "x-clearance" }) }
}) {}
class Trace extends HttpApiMiddleware.Tag<Trace>()("test/Trace", {
  optional: true,
  security: { key: HttpApiSecurity.apiKey({ key: "x-trace", in: "query" }) }
}) {}
class Plain extends HttpApiMiddleware.Tag<Plain>()("test/Plain") {}

const Thing = Schema.Struct({ id: Schema.Number, caller: Schema.String, level: Schema.Number, limit: Schema.Number })

const ThingsApi = HttpApiGroup.make("things")
  .add(
    HttpApiEndpoint.get("get", "/things/:id")
      .setPath(Schema.Struct({ id: Schema.NumberFromString }))
      .setUrlParams(Schema.Struct({ limit: Schema.optional(Schema.NumberFromString) }))
      .addSuccess(Thing)
      .addError(Missing)
      .middleware(Clearance)
  )
  .add(HttpApiEndpoint.post("create", "/things").setPayload(Schema.Struct({ name: Schema.String })))
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
      bearer: (token) =>
        Effect.suspend(() => {
          asked.push(`bearer ${Redacted.value(token)}`)
          return Redacted.value(token) === "good"
            ? Effect.succeed("by bearer")
            : Effect.fail(new Unauthorized({ scheme: "bearer" }))
        }),
      key: (key) =>
        Effect.suspend(() => {
          asked.push(`key ${Redacted.value(key)}`)
          return Redacted.value(key) === "good"
            ? Effect.succeed("by key")
            : Effect.fail(new Unauthorized({ scheme: "key" }))
        })
    })
  ),
  Layer.succeed(
    Clearance,
    Clearance.of({
      key: (clearance) =>
        Effect.suspend(() => {
          asked.push(`clearance ${Redacted.value(clearance)}`)
          const level = Number(Redacted.value(clearance))
          return Number.isInteger(level) && level > 0 ? Effect.succeed(level) : Effect.fail(new Refused())
        })
    })
  ),
  Layer.succeed(
    Trace,
    Trace.of({
      key: (trace) =>
        Effect.suspend(() => {
          asked.push(`trace ${Redacted.value(trace)}`)
          return Redacted.value(trace) === "" ? Effect.fail(new Unauthorized({ scheme: "trace" })) : Effect.void
        })
    })
  )
)

/** The handler the group hands to HttpApiBuilder, and the fast answer. */
const getThing = ({
  path,
  urlParams
}: {
  readonly path: { readonly id: number }
  readonly urlParams: { readonly limit?: number | undefined }
}) =>
  Effect.gen(function* () {
    asked.push(`handler ${path.id}`)
    if (path.id === 404) return yield* new Missing()
    return HttpServerResponse.unsafeJson({
      id: path.id,
      caller: yield* Caller,
      level: yield* Level,
      limit: urlParams.limit ?? 10
    })
  })

const { handler: routed } = HttpApiBuilder.toWebHandler(
  Layer.mergeAll(
    HttpApiBuilder.api(TestApi).pipe(
      Layer.provide(
        HttpApiBuilder.group(TestApi, "things", (handlers) =>
          handlers.handle("get", getThing).handle("create", () => Effect.void)
        )
      ),
      Layer.provide(HttpApiBuilder.group(TestApi, "plain", (handlers) => handlers.handle("get", () => Effect.void))),
      Layer.provide(Layer.succeed(Plain, Plain.of(Effect.void))),
      Layer.provide(MiddlewaresLive)
    ),
    HttpServer.layerContext
  )
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
          status: { Unauthorized: 401, Refused: 403, Missing: 404, HttpApiDecodeError: 400 }[failureOf(exit)._tag]
        })
    const body: unknown = yield* Effect.promise(() => rendered.json())
    return { status: rendered.status, body, asked: [...asked] }
  })

const encodeFailure = Schema.encodeSync(Schema.Union(Unauthorized, Refused, Missing, HttpApiError.HttpApiDecodeError))

const failureOf = <E>(exit: Exit.Exit<unknown, E>): E => {
  if (Exit.isSuccess(exit) || exit.cause._tag !== "Fail") throw new Error("expected a failure")
  return exit.cause.error
}

const aRequest: fc.Arbitrary<Asked> = fc
  .record({
    id: fc.constantFrom("1", "42", "404", "x", "1.5"),
    limit: fc.constantFrom(undefined, "5", "x"),
    trace: fc.constantFrom(undefined, "", "t1"),
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
  it.effect.prop(
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
    type Failure = Effect.Effect.Error<NonNullable<ReturnType<typeof fast.answer>>>
    // The endpoint's own, its group's middlewares' and the API's (which HttpApi gives every API).
    expectTypeOf<Failure>().toEqualTypeOf<Missing | Refused | Unauthorized | HttpApiError.HttpApiDecodeError>()
    // @ts-expect-error: a handler failing with an error its endpoint does not declare is not a fast answer.
    fastAnswer(TestApi, "things", "get", () => Effect.as(Effect.fail(new Other()), HttpServerResponse.empty()))
  })

  it("cannot be declared on an endpoint whose middleware it cannot run, or that takes a body", () => {
    expect(() =>
      Effect.runSync(
        fastAnswer(TestApi, "plain", "get", () => Effect.die("unreached")).pipe(
          Effect.provideService(Plain, Plain.of(Effect.void))
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
    for (const tag of route.middlewares)
      if (HttpApiMiddleware.isSecurity(tag))
        context = Context.add(
          context,
          tag,
          Object.fromEntries(
            Object.keys(tag.security).map((scheme) => [
              scheme,
              () => Effect.sync(() => (ran.push(`${tag.key} ${scheme}`), principal))
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
        get: (resource: string) => Effect.sync(() => (handled.push(resource), { id: "r" }))
      } as unknown as CatalogService.CatalogService
      const feed = {
        read: () => Effect.sync(() => (handled.push("changes"), { records: [], next_cursor: "c2_0", has_more: false }))
      } as unknown as ChangeFeed.ChangeFeed
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
            (tag) => `${tag.key} ${Object.keys((tag as HttpApiMiddleware.TagClassSecurityAny).security)[0]}`
          )
        ])
        expect(handled).toHaveLength(1)
      }
    })
  )
})

/**
 * Fast answers: an endpoint of the contract answered by its group's own handler without HttpApi's router
 * and its per-request steps (a copy of the request's context, the route's context, a schema decode that
 * goes through Effect), which cost a read as much as its SQL. What runs is what the router runs: the
 * endpoint's middlewares from the contract with their implementations, its path, header and query schemas,
 * its handler; a request whose path, headers or query do not decode is left to the router, which answers
 * the error. Declared against an endpoint (`fastAnswer(Api, "products", "get", handler)`), so its errors
 * are that endpoint's declared errors, and looked up through the route table.
 */
import type { Api } from "@catalog-sync/contract"
import { Context, Effect, Layer, Result, type Types } from "effect"
import { HttpServerRequest, type HttpServerResponse } from "effect/http"
import {
  HttpApiBuilder,
  type HttpApi,
  type HttpApiEndpoint,
  type HttpApiGroup,
  HttpApiMiddleware,
  type HttpApiSecurity
} from "effect/http-api"
import { type Found, type Route, routesOf } from "./RouteTable.js"

type EndpointOf<
  Groups extends HttpApiGroup.Constraint,
  GroupName extends string,
  Name extends string
> = HttpApiEndpoint.WithIdentifier<HttpApiGroup.EndpointsWithIdentifier<Groups, GroupName>, Name>

/** The errors an endpoint may answer with: its own (its group's among them) and its middlewares'. */
export type DeclaredError<
  Groups extends HttpApiGroup.Constraint,
  GroupName extends string,
  Name extends string
> = HttpApiEndpoint.Errors<EndpointOf<Groups, GroupName, Name>>

/** What the endpoint's middlewares provide to its handler (the principal). */
type Provided<
  Groups extends HttpApiGroup.Constraint,
  GroupName extends string,
  Name extends string
> = HttpApiEndpoint.MiddlewareProvides<EndpointOf<Groups, GroupName, Name>>

/** The middlewares whose implementations the endpoint's answer runs. */
type MiddlewareOf<
  Groups extends HttpApiGroup.Constraint,
  GroupName extends string,
  Name extends string
> = HttpApiEndpoint.Middleware<EndpointOf<Groups, GroupName, Name>>

/** Any error an endpoint of `A` declares. */
export type ApiDeclaredError<A> =
  A extends HttpApi.HttpApi<infer _Id, infer Groups> ? HttpApiEndpoint.Errors<HttpApiGroup.Endpoints<Groups>> : never

/** An endpoint answered fast: `answer` is undefined for a request its path, headers or query do not decode. */
export interface FastAnswer<E> {
  readonly group: string
  readonly endpoint: string
  readonly answer: (
    request: HttpServerRequest.HttpServerRequest,
    found: Found
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, HttpServerRequest.HttpServerRequest> | undefined
}

type Answering = Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, HttpServerRequest.HttpServerRequest>

/** A request's middleware, around the rest of its answer. */
type Step = (inner: Answering, found: Found) => Answering

/** The implementation of one scheme of a security middleware: it checks the credential, then runs the rest. */
type SchemeHandler = (
  inner: Answering,
  options: { readonly credential: unknown; readonly endpoint: HttpApiEndpoint.Top; readonly group: HttpApiGroup.Top }
) => Answering

/**
 * A scheme's credential read from the request as HttpApi reads it. Built once, but for an API key sent in
 * the query, which reads the query the router would have parsed into the context.
 */
const credentialOf = (
  security: HttpApiSecurity.HttpApiSecurity
): ((found: Found) => Effect.Effect<unknown, never, HttpServerRequest.HttpServerRequest>) => {
  const decode = HttpApiBuilder.securityDecode(security)
  if (security._tag === "ApiKey" && security.in === "query")
    return (found) => Effect.provideService(decode, HttpServerRequest.ParsedSearchParams, found.searchParams)
  // Read from the request alone (headers or cookies): the parsed query is not asked for.
  const fromRequest = decode as Effect.Effect<unknown, never, HttpServerRequest.HttpServerRequest>
  return () => fromRequest
}

const passing = Symbol.for("@catalog-sync/adapter-http/FastAnswer/passesThrough")

/**
 * Marks the implementation of a security middleware whose work is done before the route runs (the front
 * controller admits the request and provides what the middleware declares): a fast answer runs no step
 * for it.
 */
export const passesThrough = <A extends object>(implementation: A): A =>
  Object.assign(implementation, { [passing]: true })

/** A failure of the rest of the answer, told apart from a scheme's refusal (as HttpApi does). */
class InnerFailed {
  constructor(readonly error: unknown) {}
}

/**
 * The step of a middleware as HttpApi runs it (`applyMiddleware`): a security middleware tries its schemes
 * in order, each with its credential read from the request, until one lets the rest of the answer run;
 * when every one refuses, the last refusal is the answer. A middleware of another kind reads the router's
 * own context, which a fast answer does not build: declaring a fast answer on an endpoint that has one is
 * a defect, found when the layer is built (and by the contract's test of fast answers).
 */
const stepOf = (key: HttpApiMiddleware.AnyService, context: Context.Context<never>, route: Route): Step => {
  if (!HttpApiMiddleware.isSecurity(key))
    throw new Error(
      `a fast answer of ${route.group}.${route.name} cannot run the middleware ${key.key}: only security middlewares run outside the router`
    )
  const implementation = Context.getUnsafe(context, key) as Record<string | symbol, SchemeHandler>
  if (implementation[passing] !== undefined) return (inner) => inner
  const schemes = Object.entries(key.security).map(([name, security]) => ({
    credential: credentialOf(security),
    handler: implementation[name]!
  }))
  const options = (credential: unknown) => ({ credential, endpoint: route.endpoint, group: route.apiGroup })
  if (schemes.length === 1) {
    // One scheme (the contract's): its refusal or the rest's failure is the answer's, as it is.
    const [{ credential, handler }] = schemes as [(typeof schemes)[number]]
    return (inner, found) => Effect.flatMap(credential(found), (value) => handler(inner, options(value)))
  }
  return (inner, found) =>
    Effect.gen(function* () {
      const rest = Effect.mapError(inner, (error) => new InnerFailed(error))
      let refused: Result.Result<HttpServerResponse.HttpServerResponse, unknown> = Result.fail(undefined)
      for (const { credential, handler } of schemes) {
        const result = yield* Effect.result(Effect.flatMap(credential(found), (value) => handler(rest, options(value))))
        if (Result.isSuccess(result)) return result.success
        if (result.failure instanceof InnerFailed) return yield* Effect.fail(result.failure.error)
        refused = result
      }
      return yield* Effect.fromResult(refused)
    })
}

/**
 * Declares the fast answer of `api`'s endpoint `name` of `group`: `handler` is the function its group
 * hands to HttpApiBuilder for that endpoint, which answers with its response itself. Built, as the group's
 * handlers are, with the implementations of the endpoint's middlewares from the context. An endpoint that
 * takes a body has none: a fast answer is given before any body would be read.
 */
export const fastAnswer = <
  Id extends string,
  Groups extends HttpApiGroup.Constraint,
  const GroupName extends HttpApiGroup.Identifier<Groups>,
  const Name extends HttpApiEndpoint.Identifier<HttpApiGroup.EndpointsWithIdentifier<Groups, GroupName>>
>(
  api: HttpApi.HttpApi<Id, Groups>,
  group: GroupName,
  name: Name,
  handler: (
    request: Types.Simplify<HttpApiEndpoint.RequestRaw<EndpointOf<Groups, GroupName, Name>>>
  ) => Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    DeclaredError<Groups, GroupName, Name>,
    Provided<Groups, GroupName, Name>
  >
): Effect.Effect<FastAnswer<DeclaredError<Groups, GroupName, Name>>, never, MiddlewareOf<Groups, GroupName, Name>> =>
  Effect.map(Effect.context<never>(), (context) => {
    const route = routesOf(api).find((candidate) => candidate.group === group && candidate.name === name)
    if (route === undefined) throw new Error(`the API has no endpoint ${name} in a group ${group}`)
    if (route.endpoint.payload.size > 0)
      throw new Error(`${group}.${name} takes a body: it cannot be answered before its body is read`)
    const steps = route.middlewares.map((tag) => stepOf(tag, context, route))
    const { decodePath, decodeHeaders, decodeQuery } = route
    // The handler's own types are the endpoint's: its request is decoded with the endpoint's schemas, its
    // errors are declared, and what its middlewares provide is provided by the steps that run them.
    const run = handler as unknown as (request: Record<string, unknown>) => Answering
    return {
      group,
      endpoint: name,
      answer: (request, found) => {
        const input: Record<string, unknown> = { request, endpoint: route.endpoint, group: route.apiGroup }
        if (decodePath !== undefined) {
          const params = decodePath(found.params)
          if (Result.isFailure(params)) return undefined
          input.params = params.success
        }
        if (decodeHeaders !== undefined) {
          const headers = decodeHeaders(request.headers)
          if (Result.isFailure(headers)) return undefined
          input.headers = headers.success
        }
        if (decodeQuery !== undefined) {
          // Decoded as the router decodes it (RouteTable: its parse options, a single value for a list).
          const query = decodeQuery(found.searchParams)
          if (Result.isFailure(query)) return undefined
          input.query = query.success
        }
        let answering = run(input)
        for (let i = steps.length - 1; i >= 0; i--) answering = steps[i]!(answering, found)
        return Effect.interruptible(answering) as Effect.Effect<
          HttpServerResponse.HttpServerResponse,
          DeclaredError<Groups, GroupName, Name>,
          HttpServerRequest.HttpServerRequest
        >
      }
    }
  })

/** The fast answers of the API's endpoints, each declared next to its group's handlers. */
export class FastAnswers extends Context.Service<
  FastAnswers,
  ReadonlyArray<FastAnswer<ApiDeclaredError<typeof Api>>>
>()("@catalog-sync/adapter-http/FastAnswers") {
  // One requirement per declaration (a single type parameter would be inferred from the first one only).
  static readonly layer = <const Requirements extends ReadonlyArray<unknown>>(
    ...declared: {
      readonly [K in keyof Requirements]: Effect.Effect<
        ReadonlyArray<FastAnswer<ApiDeclaredError<typeof Api>>>,
        never,
        Requirements[K]
      >
    }
  ): Layer.Layer<FastAnswers, never, Requirements[number]> => {
    const all: ReadonlyArray<
      Effect.Effect<ReadonlyArray<FastAnswer<ApiDeclaredError<typeof Api>>>, never, Requirements[number]>
    > = declared
    return Layer.effect(
      FastAnswers,
      Effect.map(Effect.all(all), (answers) => answers.flat())
    )
  }
}

/**
 * Which requests of a route with a fast answer may have it: all of them. The tests that hold fast answers
 * to their routes' answers choose, request by request, which of the two answers.
 */
export const FastAnswering = Context.Reference<(request: HttpServerRequest.HttpServerRequest, route: Route) => boolean>(
  "@catalog-sync/adapter-http/FastAnswering",
  { defaultValue: () => () => true }
)

/**
 * Fast answers: an endpoint of the contract answered by its group's own handler without HttpApi's router
 * and its per-request steps (a copy of the request's context, the route's context, a schema decode that
 * goes through Effect), which cost a read as much as its SQL. What runs is what the router runs: the
 * endpoint's middlewares from the contract with their implementations, its path, header and query schemas,
 * its handler; a request whose path, headers or query do not decode is left to the router, which answers
 * the error. Declared against an endpoint (`fastAnswer(Api, "products", "get", handler)`), so its errors
 * are that endpoint's declared errors, and looked up through the route table.
 */
import {
  HttpApiBuilder,
  type HttpApi,
  type HttpApiEndpoint,
  type HttpApiGroup,
  HttpApiMiddleware,
  type HttpApiSecurity,
  HttpServerRequest,
  type HttpServerResponse
} from "@effect/platform"
import type { Api } from "@catalog-sync/contract"
import { Context, Effect, Either, Layer, Option, type Types } from "effect"
import { type Found, type Route, routesOf } from "./RouteTable.js"

type EndpointOf<
  Groups extends HttpApiGroup.HttpApiGroup.Any,
  GroupName extends string,
  Name extends string
> = HttpApiEndpoint.HttpApiEndpoint.WithName<HttpApiGroup.HttpApiGroup.EndpointsWithName<Groups, GroupName>, Name>

/** The errors an endpoint may answer with: its own, its group's (its middlewares' among them) and the API's. */
export type DeclaredError<
  ApiError,
  Groups extends HttpApiGroup.HttpApiGroup.Any,
  GroupName extends string,
  Name extends string
> =
  | ApiError
  | HttpApiGroup.HttpApiGroup.ErrorWithName<Groups, GroupName>
  | HttpApiEndpoint.HttpApiEndpoint.Error<EndpointOf<Groups, GroupName, Name>>

/** What the endpoint's middlewares provide to its handler (the principal). */
type Provided<ApiR, Groups extends HttpApiGroup.HttpApiGroup.Any, GroupName extends string, Name extends string> =
  | HttpApiMiddleware.HttpApiMiddleware.ExtractProvides<ApiR>
  | HttpApiGroup.HttpApiGroup.Provides<HttpApiGroup.HttpApiGroup.WithName<Groups, GroupName>>
  | HttpApiMiddleware.HttpApiMiddleware.ExtractProvides<
      HttpApiEndpoint.HttpApiEndpoint.Context<EndpointOf<Groups, GroupName, Name>>
    >

/** The middlewares whose implementations the endpoint's answer runs. */
type MiddlewareOf<ApiR, Groups extends HttpApiGroup.HttpApiGroup.Any, GroupName extends string, Name extends string> =
  | HttpApiMiddleware.HttpApiMiddleware.Only<ApiR>
  | HttpApiGroup.HttpApiGroup.MiddlewareWithName<Groups, GroupName>
  | HttpApiMiddleware.HttpApiMiddleware.Only<
      HttpApiEndpoint.HttpApiEndpoint.Context<EndpointOf<Groups, GroupName, Name>>
    >

/** Any error an endpoint of `A` declares. */
export type ApiDeclaredError<A> =
  A extends HttpApi.HttpApi<infer _Id, infer Groups, infer ApiError, infer _R>
    ? | ApiError
      | HttpApiGroup.HttpApiGroup.Error<Groups>
      | HttpApiEndpoint.HttpApiEndpoint.Error<HttpApiGroup.HttpApiGroup.Endpoints<Groups>>
    : never

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

type Check = Effect.Effect<unknown, unknown, HttpServerRequest.HttpServerRequest>

/**
 * The check of one security scheme: its credential read from the request as HttpApi reads it, then
 * verified by the middleware's implementation. Built once, but for an API key sent in the query, which
 * reads the query the router would have parsed into the context.
 */
const schemeCheck = (
  security: HttpApiSecurity.HttpApiSecurity,
  verify: (credential: unknown) => Effect.Effect<unknown, unknown>
): Check | ((found: Found) => Check) => {
  const checked = Effect.flatMap(HttpApiBuilder.securityDecode(security), verify)
  return security._tag === "ApiKey" && security.in === "query"
    ? (found) => Effect.provideService(checked, HttpServerRequest.ParsedSearchParams, found.searchParams)
    : (checked as Check)
}

/**
 * The step of a middleware as HttpApi runs it (`applyMiddleware`): a security middleware tries its schemes
 * in order, each read from the request and checked by its implementation, and provides what it resolves;
 * an optional one lets the request through when it fails. A middleware of another kind reads the router's
 * own context, which a fast answer does not build: declaring a fast answer on an endpoint that has one is
 * a defect, found when the layer is built (and by the contract's test of fast answers).
 */
const stepOf = (tag: HttpApiMiddleware.TagClassAny, context: Context.Context<never>, route: Route): Step => {
  if (!HttpApiMiddleware.isSecurity(tag))
    throw new Error(
      `a fast answer of ${route.group}.${route.name} cannot run the middleware ${tag.key}: only security middlewares run outside the router`
    )
  const implementation = Context.unsafeGet(context, tag) as unknown as Record<
    string,
    (credential: unknown) => Effect.Effect<unknown, unknown>
  >
  const checks = Object.entries(tag.security).map(([name, security]) => schemeCheck(security, implementation[name]!))
  const inOrder = (attempts: ReadonlyArray<Check>) =>
    attempts.reduce<Check | undefined>(
      (previous, attempt) => (previous === undefined ? attempt : Effect.catchAll(previous, () => attempt)),
      undefined
    ) ?? Effect.void
  const fixed = checks.every(Effect.isEffect) ? inOrder(checks as ReadonlyArray<Check>) : undefined
  const check = (found: Found) => fixed ?? inOrder(checks.map((each) => (Effect.isEffect(each) ? each : each(found))))
  const provides = tag.provides
  if (tag.optional)
    return (inner, found) =>
      Effect.matchEffect(check(found), {
        onFailure: () => inner,
        onSuccess: (value) => (provides === undefined ? inner : Effect.provideService(inner, provides, value))
      })
  return provides === undefined
    ? (inner, found) => Effect.zipRight(check(found), inner)
    : (inner, found) => Effect.flatMap(check(found), (value) => Effect.provideService(inner, provides, value))
}

/**
 * Declares the fast answer of `api`'s endpoint `name` of `group`: `handler` is the function its group
 * hands to HttpApiBuilder for that endpoint, which answers with its response itself. Built, as the group's
 * handlers are, with the implementations of the endpoint's middlewares from the context. An endpoint that
 * takes a body has none: a fast answer is given before any body would be read.
 */
export const fastAnswer = <
  Id extends string,
  Groups extends HttpApiGroup.HttpApiGroup.Any,
  ApiError,
  ApiR,
  const GroupName extends HttpApiGroup.HttpApiGroup.Name<Groups>,
  const Name extends HttpApiEndpoint.HttpApiEndpoint.Name<
    HttpApiGroup.HttpApiGroup.EndpointsWithName<Groups, GroupName>
  >
>(
  api: HttpApi.HttpApi<Id, Groups, ApiError, ApiR>,
  group: GroupName,
  name: Name,
  handler: (
    request: Types.Simplify<HttpApiEndpoint.HttpApiEndpoint.RequestRaw<EndpointOf<Groups, GroupName, Name>>>
  ) => Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    DeclaredError<ApiError, Groups, GroupName, Name>,
    Provided<ApiR, Groups, GroupName, Name>
  >
): Effect.Effect<
  FastAnswer<DeclaredError<ApiError, Groups, GroupName, Name>>,
  never,
  MiddlewareOf<ApiR, Groups, GroupName, Name>
> =>
  Effect.map(Effect.context<never>(), (context) => {
    const route = routesOf(api).find((candidate) => candidate.group === group && candidate.name === name)
    if (route === undefined) throw new Error(`the API has no endpoint ${name} in a group ${group}`)
    if (Option.isSome(route.endpoint.payloadSchema))
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
        const input: Record<string, unknown> = { request }
        if (decodePath !== undefined) {
          const path = decodePath(found.params)
          if (Either.isLeft(path)) return undefined
          input.path = path.right
        }
        if (decodeHeaders !== undefined) {
          const headers = decodeHeaders(request.headers)
          if (Either.isLeft(headers)) return undefined
          input.headers = headers.right
        }
        if (decodeQuery !== undefined) {
          // As parsed: the router also wraps a single value in a list where the parameter takes a list,
          // and no query parameter of the contract does (DecodeFailure decodes queries so too).
          const query = decodeQuery(found.searchParams)
          if (Either.isLeft(query)) return undefined
          input.urlParams = query.right
        }
        let answering = run(input)
        for (let i = steps.length - 1; i >= 0; i--) answering = steps[i]!(answering, found)
        return Effect.interruptible(answering) as Effect.Effect<
          HttpServerResponse.HttpServerResponse,
          DeclaredError<ApiError, Groups, GroupName, Name>,
          HttpServerRequest.HttpServerRequest
        >
      }
    }
  })

/** The fast answers of the API's endpoints, each declared next to its group's handlers. */
export class FastAnswers extends Context.Tag("@catalog-sync/adapter-http/FastAnswers")<
  FastAnswers,
  ReadonlyArray<FastAnswer<ApiDeclaredError<typeof Api>>>
>() {
  static readonly layer = <
    const Declared extends ReadonlyArray<
      Effect.Effect<ReadonlyArray<FastAnswer<ApiDeclaredError<typeof Api>>>, never, any>
    >
  >(
    ...declared: Declared
  ): Layer.Layer<FastAnswers, never, Effect.Effect.Context<Declared[number]>> => {
    const all: ReadonlyArray<
      Effect.Effect<
        ReadonlyArray<FastAnswer<ApiDeclaredError<typeof Api>>>,
        never,
        Effect.Effect.Context<Declared[number]>
      >
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
export class FastAnswering extends Context.Reference<FastAnswering>()("@catalog-sync/adapter-http/FastAnswering", {
  defaultValue:
    () =>
    (_request: HttpServerRequest.HttpServerRequest, _route: Route): boolean =>
      true
}) {}

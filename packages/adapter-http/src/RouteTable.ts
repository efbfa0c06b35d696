/**
 * The one route table: which route a request takes, derived once from the contract. Every question about
 * a request's route is answered here (its endpoint, path parameters and query, whether it needs a key, its
 * body limit, its metric and span name, its fast answer); nothing else matches the API's paths.
 */
import { Api } from "@catalog-sync/contract"
import { Context, type Result, Schema, type SchemaAST } from "effect"
import { FindMyWay } from "effect/http"
import { HttpApi, type HttpApiEndpoint, type HttpApiGroup, HttpApiMiddleware } from "effect/http-api"
import { maxJsonBytes, maxMediaBodyBytes } from "./BodyLimit.js"

/** Where the API is served: every path under it needs a key, but the OpenAPI document's. */
const apiPrefix = "/api/v1/"

/** The OpenAPI document of the contract, served by the API without a key. */
export const openApiPath = `${apiPrefix}openapi.json`

type Decoder = (input: unknown) => Result.Result<unknown, Schema.SchemaError>

// The contract's path, header and query schemas need no services to decode.
const decoderOf = (schema: Schema.Top | undefined, options: SchemaAST.ParseOptions | undefined): Decoder | undefined =>
  schema === undefined
    ? undefined
    : Schema.decodeUnknownResult(schema as unknown as Schema.ConstraintDecoder<unknown>, options)

/**
 * The parse options HttpApi decodes an endpoint's path, headers and query with, from the annotations the
 * API, its group and the endpoint declare (`HttpApi.QueryParseOptions`...: a part's own options, else
 * `HttpApi.ParseOptions`, the nearest declaration winning), so that its fast answer refuses what its route
 * refuses (an unknown query parameter: a schema's own `parseOptions` annotation is not read by Effect 4).
 */
const parseOptionsOf = (annotations: Context.Context<never>) => {
  const fallback = Context.getOrUndefined(annotations, HttpApi.ParseOptions)
  return {
    params: Context.getOrUndefined(annotations, HttpApi.ParamsParseOptions) ?? fallback,
    headers: Context.getOrUndefined(annotations, HttpApi.HeadersParseOptions) ?? fallback,
    query: Context.getOrUndefined(annotations, HttpApi.QueryParseOptions) ?? fallback
  }
}

type Endpoint = HttpApiEndpoint.Top

/** An endpoint of the contract, with what the envelope, the edge and the observability ask of it. */
export interface Route {
  /** The endpoint's group and name, as the contract names them (`products`, `get`). */
  readonly group: string
  readonly name: string
  readonly endpoint: Endpoint
  /** The endpoint's group as the contract declares it (its middlewares are told it). */
  readonly apiGroup: HttpApiGroup.Top
  /** The declared path (`/api/v1/products/:id`), which names the route in metrics and spans. */
  readonly template: string
  /** The middlewares HttpApi runs around the endpoint's handler, the first to run first. */
  readonly middlewares: ReadonlyArray<HttpApiMiddleware.AnyService>
  /** Whether the endpoint takes a key: it runs a security middleware (all but the probes). */
  readonly needsKey: boolean
  /** Whether the endpoint is under the API's prefix (all but the probes, which take any query). */
  readonly inApi: boolean
  /** Whether the endpoint declares query parameters; any other sent to it is refused. */
  readonly takesQuery: boolean
  /** Whether it takes a multipart body (the upload), which its handler streams itself. */
  readonly multipart: boolean
  /** The most bytes its body may have: an upload's, or a JSON body's. */
  readonly bodyLimit: number
  /**
   * The endpoint's own path, header and query schemas, compiled once with the parse options HttpApi decodes
   * them with; undefined when it declares none.
   */
  readonly decodePath: Decoder | undefined
  readonly decodeHeaders: Decoder | undefined
  readonly decodeQuery: Decoder | undefined
}

/** A request's route, as HttpApi's router finds it. */
export interface Found {
  readonly route: Route
  readonly params: Readonly<Record<string, string | undefined>>
  readonly searchParams: Readonly<Record<string, string | Array<string>>>
}

/** A route the server answers outside the contract (any method: `*`), named in metrics and spans by its template. */
export interface OutsideRoute {
  readonly method: string
  readonly path: FindMyWay.PathInput
  readonly template: string
}

type Entry =
  { readonly _tag: "Contract"; readonly route: Route } | { readonly _tag: "Outside"; readonly template: string }

/** The routes of the contract, with the lookups the edge and the envelope make on a request. */
export interface RouteTable {
  /** Every endpoint of the contract, in its order. */
  readonly routes: ReadonlyArray<Route>
  /** The contract's endpoint a request goes to, with its parameters, as HttpApi's router finds it (HEAD as GET). */
  readonly find: (method: string, url: string) => Found | undefined
  /**
   * The route that names a request in metrics and spans: its endpoint's template, a route outside the
   * contract, or `unmatched` for every other path, so that a scan of random URLs cannot grow the series.
   */
  readonly templateOf: (method: string, url: string) => string
  /**
   * Whether a request must present a key: its endpoint's middleware says so; a path no endpoint takes
   * needs one under the API's prefix (but the OpenAPI document), so that it is refused before its body.
   */
  readonly needsKey: (url: string, found: Found | undefined) => boolean
  /** The most bytes the request's body may have. */
  readonly bodyLimit: (found: Found | undefined) => number
}

/** The route name of a request no route matches, in metrics and spans. */
export const unmatched = "unmatched"

/** The request's path: its URL up to the query. */
export const pathOf = (url: string) => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

const isMultipart = (endpoint: Endpoint) =>
  Array.from(endpoint.payload.values()).some((payload) => payload.encoding._tag === "Multipart")

/**
 * The middlewares in the order HttpApi runs them: each of the endpoint's (the API's and its group's
 * included) wraps the handler and those before it, so the last declared runs first.
 */
const runOrder = (middlewares: ReadonlySet<HttpApiMiddleware.AnyService>) => Array.from(middlewares).reverse()

const derived = new WeakMap<HttpApi.Constraint, ReadonlyArray<Route>>()

/** The endpoints of `api` as routes, derived once per API. */
export const routesOf = (api: HttpApi.Constraint): ReadonlyArray<Route> => {
  const known = derived.get(api)
  if (known !== undefined) return known
  const routes: Array<Route> = []
  // Any API: only what every endpoint has is read.
  HttpApi.reflect(api as HttpApi.Top, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, group, mergedAnnotations, middleware }) => {
      const middlewares = runOrder(middleware)
      const multipart = isMultipart(endpoint)
      const options = parseOptionsOf(mergedAnnotations)
      routes.push({
        group: group.identifier,
        name: endpoint.identifier,
        endpoint,
        apiGroup: group,
        template: endpoint.path,
        middlewares,
        needsKey: middlewares.some(HttpApiMiddleware.isSecurity),
        inApi: endpoint.path.startsWith(apiPrefix),
        takesQuery: endpoint.query !== undefined,
        multipart,
        bodyLimit: multipart ? maxMediaBodyBytes : maxJsonBytes,
        decodePath: decoderOf(endpoint.params, options.params),
        decodeHeaders: decoderOf(endpoint.headers, options.headers),
        // As HttpApi decodes a query: a single value is taken for a list of one where a parameter takes a list.
        decodeQuery: decoderOf(
          endpoint.query === undefined ? undefined : Schema.toCodecArrayFromSingle(endpoint.query),
          options.query
        )
      })
    }
  })
  derived.set(api, routes)
  return routes
}

/**
 * The table of `api` (the contract by default) and the routes outside it: the OpenAPI document, and those
 * the server adds. Matched with the router's own matcher in its default configuration (letter case,
 * duplicate and trailing slashes ignored; the query starts at `?`, `;` or `#`), so the same endpoint and
 * parameters result as for HttpApi's router.
 */
export const make = (outside: ReadonlyArray<OutsideRoute> = [], api: HttpApi.Constraint = Api): RouteTable => {
  const matcher = FindMyWay.make<Entry>()
  const routes = routesOf(api)
  // The contract's paths (`/api/v1/products/:id`) are router paths as they are declared.
  for (const route of routes)
    matcher.on(route.endpoint.method, route.template as FindMyWay.PathInput, { _tag: "Contract", route })
  const openApi: OutsideRoute = { method: "GET", path: openApiPath, template: openApiPath }
  for (const { method, path, template } of [openApi, ...outside])
    if (method === "*") matcher.all(path, { _tag: "Outside", template })
    else matcher.on(method, path, { _tag: "Outside", template })
  const lookUp = (method: string, url: string) =>
    matcher.find(method, url) ?? (method === "HEAD" ? matcher.find("GET", url) : undefined)
  const find = (method: string, url: string): Found | undefined => {
    const found = lookUp(method, url)
    return found?.handler._tag === "Contract"
      ? { route: found.handler.route, params: found.params, searchParams: found.searchParams }
      : undefined
  }
  return {
    routes,
    find,
    templateOf: (method, url) => {
      // The path alone: the matcher would parse the query string too, which a template does not need.
      const entry = lookUp(method, pathOf(url))?.handler
      return entry === undefined ? unmatched : entry._tag === "Contract" ? entry.route.template : entry.template
    },
    needsKey: (url, found) => {
      if (found !== undefined) return found.route.needsKey
      const path = pathOf(url)
      return path.startsWith(apiPrefix) && path !== openApiPath
    },
    bodyLimit: (found) => found?.route.bodyLimit ?? maxJsonBytes
  }
}

/**
 * The table the API routes by: the contract's (and its OpenAPI document) unless the server provides its
 * own, with its routes outside the contract (the portal, the metrics), so that one table names them all.
 */
export const Routes = Context.Reference<RouteTable>("@catalog-sync/adapter-http/Routes", {
  defaultValue: () => make()
})

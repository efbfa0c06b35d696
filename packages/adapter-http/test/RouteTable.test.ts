import { Api } from "@catalog-sync/contract"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApi } from "effect/http-api"
import fc from "fast-check"
import { maxJsonBytes, maxMediaBodyBytes } from "../src/BodyLimit.js"
import * as RouteTable from "../src/RouteTable.js"
import { effectProp, prop } from "./props.js"

const table = RouteTable.make([{ method: "*", path: "/docs/*", template: "/docs/*" }])
const routes = table.routes

/** What HttpApi's router routes a request to: the endpoint, its path parameters and query, as its handler sees them. */
interface Routed {
  readonly endpoint: string
  readonly params: unknown
  readonly searchParams: unknown
}

/** HttpApi's own router (HttpRouter, as HttpApiBuilder.layer fills it) over the contract's endpoints. */
const router = Effect.runSync(
  Effect.gen(function* () {
    const router = yield* HttpRouter.make
    const declared: Array<HttpRouter.Route<never, never>> = []
    HttpApi.reflect(Api, {
      onGroup: () => {},
      onEndpoint: ({ endpoint, group }) => {
        declared.push(
          HttpRouter.route(
            endpoint.method,
            endpoint.path as HttpRouter.PathInput,
            Effect.map(
              Effect.all([HttpRouter.RouteContext, HttpServerRequest.ParsedSearchParams]),
              ([context, searchParams]) =>
                HttpServerResponse.jsonUnsafe({
                  endpoint: `${group.identifier}.${endpoint.identifier}`,
                  params: context.params,
                  searchParams
                })
            )
          )
        )
      }
    })
    yield* router.addAll(declared)
    return router.asHttpEffect()
  })
)

const routedBy = (method: string, url: string) =>
  router.pipe(
    Effect.map((response) => {
      const body = response.body as unknown as { readonly body: Uint8Array }
      return JSON.parse(new TextDecoder().decode(body.body)) as Routed
    }),
    Effect.orElseSucceed(() => undefined),
    Effect.scoped,
    Effect.provideService(
      HttpServerRequest.HttpServerRequest,
      HttpServerRequest.fromWeb(new Request("http://localhost/", { method })).modify({ url })
    )
  )

const foundBy = (method: string, url: string): Routed | undefined => {
  const found = table.find(method, url)
  return found === undefined
    ? undefined
    : {
        endpoint: `${found.route.group}.${found.route.name}`,
        params: found.params,
        searchParams: found.searchParams
      }
}

/** A request to an endpoint of the contract, in the shapes the router also takes (or refuses). */
const aRequest = fc
  .record({
    route: fc.constantFrom(...routes),
    id: fc.oneof(fc.uuid(), fc.stringMatching(/^[A-Za-z0-9._~%-]{1,12}$/)),
    method: fc.constantFrom("GET", "HEAD", "POST", "DELETE", "PUT"),
    shape: fc.constantFrom("as declared", "upper case", "trailing slash", "double slash", "another prefix"),
    tail: fc.constantFrom("", "?", "?limit=5", "?a=1&a=2", ";x=1", "#y", "?cursor=c2_0&resource=products")
  })
  .map(({ route, id, method, shape, tail }) => {
    const path = route.template.replace(":id", id)
    const shaped =
      shape === "upper case"
        ? path.toUpperCase()
        : shape === "trailing slash"
          ? `${path}/`
          : shape === "double slash"
            ? path.replace("/", "//")
            : shape === "another prefix"
              ? path.replace("/v1", "/v2")
              : path
    return { method: shape === "as declared" ? route.endpoint.method : method, url: `${shaped}${tail}` }
  })

describe("the route table", () => {
  effectProp(
    "finds the endpoint, path parameters and query HttpApi's router routes a request to (HEAD as GET)",
    [aRequest],
    ([{ method, url }]) =>
      Effect.map(routedBy(method, url), (routed) => {
        expect(foundBy(method, url)).toEqual(routed)
      }),
    { fastCheck: { numRuns: 200 } }
  )

  it("finds every endpoint of the contract by its own path, and names it by its template", () => {
    for (const route of routes) {
      const url = route.template.replace(":id", "0190aaaa-0000-7000-8000-00000000000f")
      expect(table.find(route.endpoint.method, url)?.route).toBe(route)
      expect(table.templateOf(route.endpoint.method, `${url}?limit=5`)).toBe(route.template)
    }
    expect(table.templateOf("HEAD", "/api/v1/products/x")).toBe("/api/v1/products/:id")
  })

  prop(
    "names any other request by a route outside the contract or `unmatched`: a URL scan cannot grow the names",
    [fc.constantFrom("GET", "POST", "HEAD", "DELETE"), fc.webPath(), fc.webQueryParameters()],
    ([method, path, query]) => {
      const names = new Set([
        ...routes.map((route) => route.template),
        RouteTable.openApiPath,
        "/docs/*",
        RouteTable.unmatched
      ])
      expect(names).toContain(table.templateOf(method, `${path}?${query}`))
    }
  )

  it("names the routes outside the contract: the OpenAPI document, the server's own, any method where declared", () => {
    expect(table.templateOf("GET", "/api/v1/openapi.json")).toBe("/api/v1/openapi.json")
    expect(table.templateOf("POST", "/api/v1/openapi.json")).toBe(RouteTable.unmatched)
    expect(table.templateOf("GET", "/docs/guides/start.html")).toBe("/docs/*")
    expect(table.templateOf("POST", "/docs/x")).toBe("/docs/*")
    expect(table.templateOf("GET", "/metrics")).toBe(RouteTable.unmatched)
    expect(table.find("GET", "/api/v1/openapi.json")).toBeUndefined()
  })

  it("says an endpoint needs a key when it runs a security middleware: every endpoint under /api/v1/, no other", () => {
    for (const route of routes) expect([route.template, route.needsKey]).toEqual([route.template, route.inApi])
    expect(routes.filter((route) => !route.needsKey).map((route) => route.template)).toEqual(["/health", "/ready"])
  })

  prop(
    "says a path no endpoint takes needs a key under /api/v1/ (but the OpenAPI document), so it is refused before its body",
    [fc.webSegment(), fc.constantFrom("", "?x=1")],
    ([segment, query]) => {
      const url = `/api/v1/no-such-${segment}${query}`
      expect(table.needsKey(url, table.find("POST", url))).toBe(true)
      expect(table.needsKey(`/elsewhere/${segment}`, undefined)).toBe(false)
    }
  )

  it("gives the OpenAPI document and the probes no key", () => {
    expect(table.needsKey("/api/v1/openapi.json", table.find("GET", "/api/v1/openapi.json"))).toBe(false)
    expect(table.needsKey("/health?probe=1", table.find("GET", "/health?probe=1"))).toBe(false)
    expect(table.needsKey("/api/v1/me", table.find("GET", "/api/v1/me"))).toBe(true)
  })

  it("gives the endpoint whose payload is multipart (the upload) 10 MB, every other request 1 MB", () => {
    const uploads = routes.filter((route) => route.multipart)
    expect(uploads.map((route) => `${route.endpoint.method} ${route.template}`)).toEqual(["POST /api/v1/media"])
    for (const route of routes) expect(route.bodyLimit).toBe(route.multipart ? maxMediaBodyBytes : maxJsonBytes)
    for (const url of ["/api/v1/media", "/api/v1/media/", "/API/v1/media?x=1"])
      expect(table.bodyLimit(table.find("POST", url))).toBe(maxMediaBodyBytes)
    for (const [method, url] of [
      ["PUT", "/api/v1/media"],
      ["POST", "/api/v1/media/x"],
      ["POST", "/api/v1/products/upsert"]
    ] as const)
      expect(table.bodyLimit(table.find(method, url))).toBe(maxJsonBytes)
  })

  it("runs an endpoint's middlewares as HttpApi does: the endpoint's own around the group's", () => {
    const archive = routes.find((route) => route.group === "products" && route.name === "archive")!
    // Declared on the group and again on the endpoint: run once.
    expect(archive.middlewares.map((tag) => tag.key)).toEqual(["@catalog-sync/contract/Authentication"])
    expect(routes.find((route) => route.name === "health")!.middlewares).toEqual([])
  })
})

import { ApiLive, RouteTable } from "@catalog-sync/adapter-http"
import { PortalHttp } from "@catalog-sync/portal"
import { Layer } from "effect"
import { EdgeReferencesLive } from "./Edge.js"
import { panelMount, type PanelRequirements } from "./PanelMount.js"
import * as MetricsEndpoint from "./Observability/MetricsEndpoint.js"
import type { RuntimeSettings } from "./ServerConfig.js"

/**
 * Routes the server serves beside the contract's endpoints: the paths they take, which the route table
 * names (so that logs, metrics, spans and the edge's body limits know them), and the layer that adds them
 * to the router. Its requirements are met by the services (`ServicesLive`) and the server's own layers.
 */
export interface Mount<E, R> {
  readonly paths: ReadonlyArray<RouteTable.OutsideRoute>
  readonly routes: Layer.Layer<never, E, R>
}

/**
 * What the server's mounts need: the router (with the portal's route-not-found answers), the services and
 * persistence ports `ServicesLive` provides, and the scrape of the metrics, which the server provides too.
 */
export type MountRequirements = PortalHttp.Requires | PanelRequirements | MetricsEndpoint.MetricsScrape

/** What the contract's endpoints need (`ApiLive`): the core services and the platform's (files, paths, ETags). */
export type ApiRequirements = Layer.Services<typeof ApiLive>

/** Every path under `prefix` and `prefix` itself, named by one template. */
export const pathsUnder = (prefix: `/${string}`): ReadonlyArray<RouteTable.OutsideRoute> => [
  { method: "*", path: prefix, template: `${prefix}/*` },
  { method: "*", path: `${prefix}/*`, template: `${prefix}/*` }
]

/**
 * The mounts of the server, in one list: the developer portal at /docs (static pages rendered once at
 * start, no database queries) and, on the main port when configured, the metrics. Another set of pages
 * is served by adding its mount here.
 */
export const mountsOf = (runtime: RuntimeSettings): ReadonlyArray<Mount<never, MountRequirements>> => [
  { paths: pathsUnder("/docs"), routes: PortalHttp.layerFromDocs(runtime.docsDir) },
  ...(runtime.panelEnabled ? [panelMount()] : []),
  ...(runtime.metrics.onMainPort
    ? [
        {
          paths: [{ method: "GET", path: "/metrics", template: "/metrics" } as const],
          routes: MetricsEndpoint.MainPortRoute
        }
      ]
    : [])
]

/** The route table of the server: the contract's endpoints and the mounts' paths. */
export const routeTableOf = (mounts: ReadonlyArray<Mount<unknown, unknown>>): RouteTable.RouteTable =>
  RouteTable.make(mounts.flatMap((mount) => mount.paths))

/** The API's routes on the router, with every mount's. */
export const RoutesLive = <E, R>(
  routes: RouteTable.RouteTable,
  mounts: ReadonlyArray<Mount<E, R>>
): Layer.Layer<never, E, ApiRequirements | R> =>
  Layer.mergeAll(
    ApiLive.pipe(Layer.provide(EdgeReferencesLive), Layer.provide(Layer.succeed(RouteTable.Routes, routes))),
    ...mounts.map((mount) => mount.routes)
  )

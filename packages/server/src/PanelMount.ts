import { CompanyPanel, JobAdmin } from "@catalog-sync/core"
import type { CatalogSync, RouteTable } from "@catalog-sync/adapter-http"
import { PanelHttp } from "@catalog-sync/panel"
import { Layer } from "effect"
import type { HttpRouter } from "effect/http"
import { EdgeReferencesLive } from "./Edge.js"

/**
 * What the panel's pages need: the router, and the services and persistence ports `ServicesLive`
 * provides, which `CompanyPanel` and `JobAdmin` are made from.
 */
export type PanelRequirements = HttpRouter.HttpRouter | CatalogSync.Provided<CatalogSync.PersistencePorts>

/**
 * The company panel at /panel: its pages over `CompanyPanel`, whose admin services the server's services
 * provide (JobAdmin, the operator's view of jobs, is made here), with the trusted proxies of the settings.
 */
export const panelMount = (): {
  readonly paths: ReadonlyArray<RouteTable.OutsideRoute>
  readonly routes: Layer.Layer<never, never, PanelRequirements>
} => ({
  // Every path under /panel, named by one template in logs, metrics and spans.
  paths: PanelHttp.paths("/panel").map((path): RouteTable.OutsideRoute => ({
    method: "*",
    path,
    template: "/panel/*"
  })),
  routes: PanelHttp.layer({ base: "/panel" }).pipe(
    Layer.provide(CompanyPanel.CompanyPanel.Default.pipe(Layer.provide(JobAdmin.JobAdmin.Default))),
    Layer.provide(EdgeReferencesLive)
  )
})

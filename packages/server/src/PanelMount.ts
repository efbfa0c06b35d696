import { CompanyPanel, JobAdmin } from "@catalog-sync/core"
import type { RouteTable } from "@catalog-sync/adapter-http"
import { PanelHttp } from "@catalog-sync/panel"
import { Layer } from "effect"
import { EdgeReferencesLive } from "./Edge.js"

/**
 * The company panel at /panel: its pages over `CompanyPanel`, whose admin services the server's services
 * provide (JobAdmin, the operator's view of jobs, is made here), with the trusted proxies of the settings.
 */
export const panelMount = () => ({
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

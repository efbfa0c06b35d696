import { CompanyPanel, JobAdmin } from "@catalog-sync/core"
import { PanelHttp } from "@catalog-sync/panel"
import { Layer } from "effect"
import { EdgeReferencesLive } from "./Edge.js"
import { pathsUnder } from "./Routes.js"

/**
 * The company panel at /panel: its pages over `CompanyPanel`, whose admin services the server's services
 * provide (JobAdmin, the operator's view of jobs, is made here), with the trusted proxies of the settings.
 */
export const panelMount = () => ({
  paths: pathsUnder("/panel"),
  routes: PanelHttp.layer({ base: "/panel" }).pipe(
    Layer.provide(CompanyPanel.CompanyPanel.Default.pipe(Layer.provide(JobAdmin.JobAdmin.Default))),
    Layer.provide(EdgeReferencesLive)
  )
})

/**
 * The company panel: server-rendered pages at `/panel` where platform administrators set up companies
 * and their grants, and a company's owners and managers run its connections, keys and locations, over
 * the core's `CompanyPanel` use cases. No client framework: one small script (the copy button).
 *
 * @packageDocumentation
 */
/** The panel's routes on an `HttpRouter`, and the paths it serves. */
export * as PanelHttp from "./PanelHttp.js"
/** HTML templates whose values are escaped. */
export * as Html from "./Html.js"

export * as Portal from "./Portal.js"
export * as PortalHttp from "./PortalHttp.js"
export { renderPortal } from "./PortalHttp.js"

export * as Portal from "./Portal.js"
export * as PortalHttp from "./PortalHttp.js"
export * as Shelves from "./Shelves.js"
export { renderPortal } from "./PortalHttp.js"

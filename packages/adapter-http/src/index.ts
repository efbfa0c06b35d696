/**
 * `ApiLive`, the whole HTTP API as a layer; `CatalogSync`, every service it needs in one layer and the API
 * in a host's router; and `Readiness`, what `GET /ready` checks: what an embedding application serves. The
 * rest are the edge's settings and checks the server applies before a request reaches the API (trusted
 * proxies, hosts, the authentication failure budget, declared body sizes).
 *
 * @packageDocumentation
 */
export { ApiLive } from "./ApiLive.js"
export { AuthFailureBudget } from "./Admission.js"
export { declaresOver } from "./BodyLimit.js"
export {
  addressGroup,
  forwardedHosts,
  fromTrustedProxy,
  isValidHost,
  normalizeAddress,
  normalizeHost,
  originOf,
  parseTrustedProxies,
  type ProxyHeaders,
  proxyHeaderFamilies,
  type ProxySettings,
  TrustedProxies
} from "./ClientOrigin.js"
export { FastAnswering } from "./FastAnswer.js"
export { isAbsoluteForm } from "./HostCheck.js"
/** Panel passwords hashed with node:crypto scrypt (the `PasswordHasher` port). */
export * as NodePasswordHasher from "./NodePasswordHasher.js"
export * as RouteTable from "./RouteTable.js"
export { Readiness } from "./System/Readiness.js"

/** Every service the API needs in one layer, and the API in a host application's router. */
export * as CatalogSync from "./CatalogSync.js"

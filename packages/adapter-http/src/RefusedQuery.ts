import { findEndpoint } from "./ContractEndpoints.js"

/**
 * Query parameter names the framework cannot refuse as unknown: it copies the parsed query into a plain
 * object, where `__proto__` replaces the prototype instead of becoming a key, so the strict query
 * schemas never see it. No endpoint takes such a name.
 */
const unsafeNames: ReadonlySet<string> = new Set(["__proto__"])

const namesOf = (search: string) => Array.from(new Set(new URLSearchParams(search).keys()))

/**
 * The query parameters of a request that are refused before it is routed (422 at `query.<name>`), as the
 * lists' strict query schemas refuse an unknown one:
 * - every parameter sent to an endpoint of the API that takes no query (a read by id, a write, /me), so
 *   that a misplaced option (`POST /imports?dry_run=true`, `GET /products/{id}?mode=prices`) is never
 *   silently ignored; the probes (/health, /ready) take any query, for load balancers that add one;
 * - `__proto__` on any endpoint (see `unsafeNames`).
 */
export const refusedQueryNames = (method: string, url: string): ReadonlyArray<string> => {
  const query = url.indexOf("?")
  if (query === -1 || query === url.length - 1) return []
  const search = url.slice(query + 1)
  if (url.startsWith("/api/v1/")) {
    const endpoint = findEndpoint(method, url)
    if (endpoint !== undefined && endpoint.handler.urlParamsSchema._tag === "None") return namesOf(search)
  }
  // Parsing every query costs the lists; the unsafe name can only be spelled with "proto" or escapes.
  if (!/proto|%/i.test(search)) return []
  return namesOf(search).filter((name) => unsafeNames.has(name))
}

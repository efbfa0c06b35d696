import { Result } from "effect"
import type { Found } from "./RouteTable.js"

/**
 * Query parameter names the framework cannot be trusted to refuse as unknown: copied into a plain object,
 * `__proto__` replaces the prototype instead of becoming a key, so a strict query schema never sees it.
 * No endpoint takes such a name.
 */
const unsafeNames: ReadonlySet<string> = new Set(["__proto__"])

const namesOf = (search: string) => Array.from(new Set(new URLSearchParams(search).keys()))

/**
 * Where the router takes the query to start: at the first `?`, `;` or `#` after the path's first
 * character, as its FindMyWay splits it. Clients and the spec know only `?`.
 */
const querySeparator = /[?;#]/g
const queryStart = (url: string) => {
  querySeparator.lastIndex = 1
  return querySeparator.exec(url)?.index ?? -1
}

/** Whether the request's path parameters decode: a path that does not is answered 404 by the route. */
const pathDecodes = (found: Found) =>
  found.route.decodePath === undefined || Result.isSuccess(found.route.decodePath(found.params))

/**
 * The query parameters of a request that are refused (422 at `query.<name>`) rather than ignored, as the
 * lists' strict query schemas refuse an unknown one; `found` is the request's route (RouteTable):
 * - every parameter sent to an endpoint of the API that takes no query (a read by id, a write, /me), so
 *   that a misplaced option (`POST /imports?dry_run=true`, `GET /products/{id}?mode=prices`) is never
 *   silently ignored; the probes (/health, /ready) take any query, for load balancers that add one;
 * - on any endpoint of the API, parameters after `;` or `#`, which only the router takes for a query
 *   (`/imports;dry_run=true`, `/products;limit=5`);
 * - `__proto__` on any endpoint (see `unsafeNames`).
 * A request whose path parameters do not decode gets none: its answer is the route's 404.
 * Not an empty query schema on those endpoints in the contract: HttpApi's client would then require every
 * caller of the typed client to pass `urlParams: {}`.
 */
export const refusedQueryNames = (url: string, found: Found | undefined): ReadonlyArray<string> => {
  const start = queryStart(url)
  if (start === -1) return []
  const search = url.slice(start + 1)
  if (search === "") return []
  if (found !== undefined && found.route.inApi) {
    if (!pathDecodes(found)) return []
    if (url[start] !== "?" || !found.route.takesQuery) return namesOf(search)
  }
  // Parsing every query costs the lists; the unsafe name can only be spelled with "proto" or escapes.
  if (!/proto|%/i.test(search)) return []
  return namesOf(search).filter((name) => unsafeNames.has(name))
}

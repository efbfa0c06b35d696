import { type CatalogService, Resource } from "@catalog-sync/core"
import type { Context } from "effect"
import type { Admission } from "../Admission.js"
import { fastGetRoute } from "../FastRoute.js"
import { recordAnswer } from "./Http.js"

// A catalog record's path, exactly as the contract's `GET /{resource}/{id}` routes it: no query, no
// trailing slash, no escapes, the id a uuid in any letter case (the contract's path schema lowercases it).
const recordPath = new RegExp(
  `^/api/v1/(${Resource.resourceNames.join("|")})/([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$`
)

/**
 * `GET /{resource}/{id}` of a catalog resource answered without HttpApi's router and its per-endpoint
 * steps (path schema, security middleware, handler), which cost a read as much as its SQL. The answer is
 * the endpoint's own: the same admission (401/403/429 and the RateLimit headers), the same use case, the
 * same body and, through the envelope, the same errors and headers. Any request it does not recognise
 * exactly (a query, a malformed id, another method) is left to HttpApi, which answers it as before;
 * with tracing on it is left there too, so that the route's spans are kept. The endpoint stays declared
 * in the contract (the OpenAPI document), and the API fuzzer checks these answers against it.
 */
export const fastGet = (catalog: CatalogService.CatalogService, admission: Context.Tag.Service<typeof Admission>) =>
  // The id lowercased, as the contract's path schema gives it to the route's handler.
  fastGetRoute(admission, recordPath, (matched) =>
    recordAnswer(catalog, matched[1] as Resource.ResourceName, matched[2]!.toLowerCase())
  )

import { HttpApi } from "@effect/platform"
import type { HttpApiEndpoint, HttpMethod } from "@effect/platform"
import { Api } from "@catalog-sync/contract"
import * as FindMyWay from "find-my-way-ts"

export type Endpoint = HttpApiEndpoint.HttpApiEndpoint<string, HttpMethod.HttpMethod>

const endpointsOf = (api: HttpApi.HttpApi.Any): FindMyWay.Router<Endpoint> => {
  // The router's own matcher with its default configuration, so that the same endpoint and parameters result.
  const router = FindMyWay.make<Endpoint>()
  HttpApi.reflect(api as HttpApi.HttpApi.AnyWithProps, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => router.on(endpoint.method, endpoint.path as FindMyWay.PathInput, endpoint)
  })
  return router
}

let contractEndpoints: FindMyWay.Router<Endpoint> | undefined

/** The contract's endpoint HttpApi's router gives `url` (with its path parameters and query), if any. */
export const findEndpoint = (method: string, url: string) => {
  contractEndpoints ??= endpointsOf(Api)
  return contractEndpoints.find(method, url) ?? (method === "HEAD" ? contractEndpoints.find("GET", url) : undefined)
}

import type { Principal } from "@catalog-sync/core"
import { Context, Effect } from "effect"

/**
 * The request being served, as the front controller admitted it: its id, the headers its answer carries
 * whatever it turns out to be (the RateLimit state of its key), the client's address as admission saw it
 * (behind trusted proxies, the forwarded one) and the principal its key acts as. Made once per request,
 * after admission, and never changed: the front controller provides it with the principal
 * (`Principal.CurrentPrincipal`), which handlers, middlewares and use cases read.
 */
export interface AdmittedRequest {
  readonly id: string
  readonly answerHeaders: Readonly<Record<string, string>>
  readonly client: string | undefined
  /** Undefined for a request that needs no key (the probes, the OpenAPI document, the portal). */
  readonly principal: Principal.Principal | undefined
}

const noHeaders: Readonly<Record<string, string>> = Object.freeze({})

/** A request that presented no key (or needed none), under its id. */
export const unadmitted = (id: string, client?: string): AdmittedRequest => ({
  id,
  answerHeaders: noHeaders,
  client,
  principal: undefined
})

/** The request being served; the front controller provides it for each request. */
export const CurrentRequest = Context.Reference<AdmittedRequest>("@catalog-sync/adapter-http/CurrentRequest", {
  defaultValue: () => unadmitted("")
})

export const requestId = Effect.map(CurrentRequest, (request) => request.id)

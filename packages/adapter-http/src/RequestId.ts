import type { Principal } from "@catalog-sync/core"
import { Context, Effect } from "effect"

/**
 * What the envelope middleware keeps for the request being served, set once per request: its id, the
 * headers its answer carries whatever it turns out to be (the RateLimit state, once known), the client
 * address and the principal once the request is admitted (the Authentication middleware reuses a
 * principal the envelope admitted before reading a body; the request log names both). One mutable
 * object, so that a request pays one provided reference for all of it.
 */
export interface RequestState {
  readonly id: string
  readonly answerHeaders: Record<string, string>
  admitted: Principal.Principal | undefined
  /** The client's address as admission saw it (behind trusted proxies, the forwarded one). */
  client: string | undefined
}

export const newRequestState = (id: string): RequestState => ({
  id,
  answerHeaders: {},
  admitted: undefined,
  client: undefined
})

const outsideRequests: RequestState = Object.freeze({
  id: "",
  answerHeaders: Object.freeze({}),
  admitted: undefined,
  client: undefined
})

/** The request being served; the envelope provides it (`Effect.provideService`) for each request. */
export const CurrentRequest = Context.Reference<RequestState>("@catalog-sync/adapter-http/CurrentRequest", {
  defaultValue: () => outsideRequests
})

export const requestId = Effect.map(CurrentRequest, (state) => state.id)

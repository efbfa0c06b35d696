import { Principal } from "@catalog-sync/core"
import { Authentication } from "@catalog-sync/contract"
import { Effect, Layer } from "effect"
import { HttpServerRequest } from "effect/http"
import { Admission } from "./Admission.js"
import { CurrentRequest } from "./RequestId.js"

/**
 * The Authentication middleware: a request with a body was admitted by the Envelope before its body was
 * read, and its principal is reused; any other request is admitted here. The principal is provided to
 * the rest of the request's answer.
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.map(Admission, (admission) => {
    const principal = Effect.flatMap(CurrentRequest, (state) =>
      state.admitted !== undefined
        ? Effect.succeed(state.admitted)
        : Effect.flatMap(HttpServerRequest.HttpServerRequest, admission.admit)
    )
    return Authentication.of({
      bearer: (httpEffect) =>
        Effect.flatMap(principal, (admitted) => Effect.provideService(httpEffect, Principal.CurrentPrincipal, admitted))
    })
  })
)

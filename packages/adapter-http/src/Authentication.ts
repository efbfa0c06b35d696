import { HttpServerRequest } from "@effect/platform"
import { Authentication } from "@catalog-sync/contract"
import { Effect, FiberRef, Layer } from "effect"
import { Admission } from "./Admission.js"
import { CurrentRequest } from "./RequestId.js"

/**
 * The Authentication middleware: a request with a body was admitted by the Envelope before its body was
 * read, and its principal is reused; any other request is admitted here.
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.map(Admission, (admission) =>
    Authentication.of({
      bearer: () =>
        Effect.flatMap(FiberRef.get(CurrentRequest), (state) =>
          state.admitted !== undefined
            ? Effect.succeed(state.admitted)
            : Effect.flatMap(HttpServerRequest.HttpServerRequest, admission.admit)
        )
    })
  )
)

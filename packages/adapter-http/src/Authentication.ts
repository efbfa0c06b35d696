import { HttpServerRequest } from "@effect/platform"
import { Authentication } from "@catalog-sync/contract"
import { Effect, FiberRef, Layer } from "effect"
import { Admission, admittedPrincipal } from "./Admission.js"

/**
 * The Authentication middleware: a request with a body was admitted by the Envelope before its body was
 * read, and its principal is reused; any other request is admitted here.
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.map(Admission, (admission) =>
    Authentication.of({
      bearer: () =>
        Effect.flatMap(FiberRef.get(admittedPrincipal), (admitted) =>
          admitted !== undefined
            ? Effect.succeed(admitted)
            : Effect.flatMap(HttpServerRequest.HttpServerRequest, admission.admit)
        )
    })
  )
)

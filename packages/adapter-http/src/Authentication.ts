import { Authentication } from "@catalog-sync/contract"
import { type Effect, Layer, type Types } from "effect"
import type { HttpServerResponse } from "effect/http"
import { passesThrough } from "./FastAnswer.js"

/**
 * The Authentication middleware of the contract, which declares the bearer scheme and its errors: the
 * front controller admits every request that needs a key before any of it is read, answers a refused
 * key itself, and provides the principal (`Principal.CurrentPrincipal`) to the rest of the answer. So
 * the middleware has nothing left to do per request: it passes the answer on (and a fast answer skips it).
 */
export const AuthenticationLive = Layer.succeed(
  Authentication,
  passesThrough(
    Authentication.of({
      // The principal this middleware declares it provides is in the context already (see above).
      bearer: (httpEffect) => httpEffect as Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled>
    })
  )
)

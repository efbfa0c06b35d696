import { Effect } from "effect"
import { type ApiError, make } from "./ApiErrors.js"
import { renderDomainError } from "./ErrorMapping.js"
import { requestId } from "./RequestId.js"

/** Converts a core failure into the declared API error of its status (unknown ones stay defects). */
export const toApiError = (error: unknown): Effect.Effect<never, ApiError> =>
  Effect.flatMap(requestId, (id) => {
    const rendered = renderDomainError(error)
    return rendered === undefined ? Effect.die(error) : Effect.fail(make(rendered.status, id, rendered.error))
  })

/** Runs a core effect in a handler, mapping its failures to the declared API errors. */
export const api = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, ApiError, R> =>
  Effect.catchAll(effect, toApiError)

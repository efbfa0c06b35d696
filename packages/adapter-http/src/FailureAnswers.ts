/**
 * The answers of the front controller that are not the handlers': a refusal in the spec's error body,
 * and any failure that reaches it (decode errors, unknown paths, defects) rendered the same way.
 */
import { Cause, Effect, Option, Result } from "effect"
import { HttpServerError, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiError } from "effect/http-api"
import { ApiErrors } from "@catalog-sync/contract"
import { failingPart, renderDecodeFailure } from "./DecodeFailure.js"
import { isDomainError, renderDomainError } from "./ErrorResponses.js"
import { type Found, openApiPath } from "./RouteTable.js"

/** The spec's error body under the request's id, with Retry-After when the error says when to retry. */
export const respond = (requestId: string, status: ApiErrors.ErrorStatus, error: ApiErrors.ErrorDetail) => {
  const response = HttpServerResponse.jsonUnsafe({ request_id: requestId, error }, { status })
  return error.retry_after === undefined
    ? response
    : HttpServerResponse.setHeader(response, "retry-after", String(error.retry_after))
}

/**
 * The Retry-After header of an error HttpApi encoded itself (the declared errors of the handlers): its
 * body's `retry_after`. Only the statuses that carry one are read.
 */
export const withRetryAfter = (response: HttpServerResponse.HttpServerResponse) => {
  if ((response.status !== 429 && response.status !== 503) || response.headers["retry-after"] !== undefined)
    return response
  const body = response.body
  if (body._tag !== "Uint8Array") return response
  try {
    const parsed = JSON.parse(body.text ?? new TextDecoder().decode(body.body)) as {
      readonly error?: { readonly retry_after?: unknown }
    }
    const seconds = parsed.error?.retry_after
    return typeof seconds === "number"
      ? HttpServerResponse.setHeader(response, "retry-after", String(seconds))
      : response
  } catch {
    return response
  }
}

/**
 * A fast answer with its declared errors answered as HttpApi's route answers them: encoded into its
 * response within the route, so that its "use case" span ends with an answer (a record not found), as the
 * route's does, not with a failure; anything else (a defect) still fails it, as it fails the route's.
 */
export const answeringDeclared = <E, R>(
  answer: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  requestId: string
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> =>
  Effect.catch(answer, (error) =>
    ApiErrors.isApiError(error)
      ? Effect.succeed(respond(requestId, ApiErrors.statusOf(error), error.error))
      : Effect.fail(error)
  )

/** What the router answers for a path no route takes. */
export const routeNotFound = (requestId: string) =>
  respond(requestId, 404, { code: "route_not_found", message: `no such endpoint; see GET ${openApiPath}` })

/**
 * Answers a decode error of the framework (a defect of the route: HttpApi dies with it) by the part of the
 * request that fails its schema (a bad path id 404, a bad Idempotency-Key or query 422; bodies are decoded
 * by their handlers). One that no part of the request reproduces (a response that does not encode) is an
 * unexpected error, logged.
 */
export const answerFailure = (
  request: HttpServerRequest.HttpServerRequest,
  found: Found | undefined,
  requestId: string,
  cause: Cause.Cause<unknown>
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const defect = Cause.findDefect(cause)
  if (Result.isFailure(defect) || !HttpApiError.HttpApiSchemaError.is(defect.success))
    return renderCause(requestId, cause)
  return Option.match(failingPart(request, found), {
    onNone: () => renderCause(requestId, cause),
    onSome: (found) => {
      const rendered = renderDecodeFailure(found)
      return Effect.succeed(respond(requestId, rendered.status, rendered.error))
    }
  })
}

/** Turns any failure of the API into the spec's error body; nothing framework-shaped reaches a client. */
const renderCause = (requestId: string, cause: Cause.Cause<unknown>) => {
  const failure = Cause.findErrorOption(cause)
  if (Option.isSome(failure)) {
    const error = failure.value
    if (ApiErrors.isApiError(error)) return Effect.succeed(respond(requestId, ApiErrors.statusOf(error), error.error))
    if (isDomainError(error)) {
      const domain = renderDomainError(error)
      return Effect.succeed(respond(requestId, domain.status, domain.error))
    }
    if (HttpServerError.isHttpServerError(error) && error.reason._tag === "RouteNotFound") {
      return Effect.succeed(routeNotFound(requestId))
    }
  }
  // A body that does not parse as JSON: its handler reads it (`Writes.rawWrite`) and dies with the error.
  const defect = Cause.findDefect(cause)
  if (
    Result.isSuccess(defect) &&
    HttpServerError.isHttpServerError(defect.success) &&
    defect.success.reason._tag === "RequestParseError" &&
    defect.success.reason.cause instanceof SyntaxError
  ) {
    return Effect.succeed(
      respond(requestId, 400, {
        code: "malformed_json",
        message: `the body is not valid JSON: ${defect.success.reason.cause.message}`
      })
    )
  }
  if (Cause.hasInterruptsOnly(cause)) {
    return Effect.succeed(
      respond(requestId, 503, {
        code: "service_unavailable",
        message: "the server is shutting down; retry with the same Idempotency-Key"
      })
    )
  }
  return Effect.as(
    Effect.logError("request failed with an unexpected error", cause).pipe(
      Effect.annotateLogs("request_id", requestId)
    ),
    respond(requestId, 500, {
      code: "internal_error",
      message: "an unexpected error occurred; retry with the same Idempotency-Key"
    })
  )
}

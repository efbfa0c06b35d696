import { Cause, Effect, LogLevel, Option, References, Result, Tracer, type Types } from "effect"
import { HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiError } from "effect/http-api"
import { randomUUID } from "node:crypto"
import { ApiErrors } from "@catalog-sync/contract"
import { Admission } from "./Admission.js"
import {
  BodyTooLarge,
  declaresOver,
  incomingOf,
  maxJsonBytes,
  jsonShape,
  maxJsonDepth,
  maxJsonKeys,
  readLimited,
  settleUnreadBody,
  withBody
} from "./BodyLimit.js"
import { failingPart, renderDecodeFailure } from "./DecodeFailure.js"
import { arrivedAfterClose } from "./LingeringClose.js"
import { originOf, TrustedProxies } from "./ClientOrigin.js"
import { refusedQueryNames } from "./RefusedQuery.js"
import { isDomainError, issueDetails, renderDomainError } from "./ErrorResponses.js"
import { FastAnswering, FastAnswers } from "./FastAnswer.js"
import { CurrentRequest, newRequestState, type RequestState } from "./RequestId.js"
import { type Found, openApiPath, pathOf, type Route, Routes, unmatched } from "./RouteTable.js"

const respond = (requestId: string, status: ApiErrors.ErrorStatus, error: ApiErrors.ErrorDetail) => {
  const response = HttpServerResponse.jsonUnsafe({ request_id: requestId, error }, { status })
  return error.retry_after === undefined
    ? response
    : HttpServerResponse.setHeader(response, "retry-after", String(error.retry_after))
}

/**
 * The Retry-After header of an error HttpApi encoded itself (the declared errors of the handlers and of
 * the Authentication middleware): its body's `retry_after`. Only the statuses that carry one are read.
 */
const withRetryAfter = (response: HttpServerResponse.HttpServerResponse) => {
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
 * Headers of every answer: its request id and those the request gathered (the RateLimit state);
 * `nosniff`, so that no answer is ever run as another type; and `no-store` unless the answer says how it
 * may be cached (the images and the portal do), since API answers hold keys' principals and tenant data
 * that no shared cache may keep.
 */
const answerHeaders = (response: HttpServerResponse.HttpServerResponse, state: RequestState) =>
  HttpServerResponse.setHeaders(response, {
    ...state.answerHeaders,
    "x-request-id": state.id,
    "x-content-type-options": "nosniff",
    ...(response.headers["cache-control"] === undefined ? { "cache-control": "no-store" } : {})
  })

/**
 * A fast answer with its declared errors answered as HttpApi's route answers them: encoded into its
 * response within the route, so that its "use case" span ends with an answer (a refused key, a record not
 * found), as the route's does, not with a failure; anything else (a defect) still fails it, as it fails
 * the route's.
 */
const answeringDeclared = <E, R>(
  answer: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  requestId: string
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> =>
  Effect.catch(answer, (error) =>
    ApiErrors.isApiError(error)
      ? Effect.succeed(respond(requestId, ApiErrors.statusOf(error), error.error))
      : Effect.fail(error)
  )

/** What the router answers for a path no route takes. */
const routeNotFound = (requestId: string) =>
  respond(requestId, 404, { code: "route_not_found", message: `no such endpoint; see GET ${openApiPath}` })

/**
 * Answers a decode error of the framework (a defect of the route: HttpApi dies with it) by the part of the
 * request that fails its schema (a bad path id 404, a bad Idempotency-Key or query 422; bodies are decoded
 * by their handlers). One that no part of the request reproduces (a response that does not encode) is an
 * unexpected error, logged.
 */
const answerFailure = (
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
  // A body that does not parse as JSON: its handler reads it (`Writes.decodedBody`) and dies with the error.
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

const isMultipart = (contentType: string | undefined) =>
  contentType !== undefined && /^multipart\/form-data\s*;/i.test(contentType.trim())

const isJson = (contentType: string | undefined) =>
  contentType !== undefined && /^application\/json\s*(;|$)/i.test(contentType.trim())

/** The fast answers by the route they answer, and which requests may have one (FastAnswer). */
const fastAnswersOf = Effect.map(Effect.all([Routes, FastAnswers, FastAnswering]), ([routes, answers, allowed]) => {
  const byRoute = new Map<Route, (typeof answers)[number]["answer"]>()
  for (const declared of answers) {
    const route = routes.routes.find((r) => r.group === declared.group && r.name === declared.endpoint)
    if (route === undefined) throw new Error(`no route answers ${declared.group}.${declared.endpoint}`)
    byRoute.set(route, declared.answer)
  }
  return (request: HttpServerRequest.HttpServerRequest, found: Found) => {
    const answer = byRoute.get(found.route)
    return answer === undefined || !allowed(request, found.route) ? undefined : answer(request, found)
  }
})

/**
 * Wraps every route of the router (a global middleware: the API's, the OpenAPI document's, those the
 * server adds, and the 404 of a path none takes): gives each request its id (the X-Request-Id header and
 * `request_id`) and the headers every answer carries, and renders every failure that reaches it (the
 * errors HttpApi does not encode itself: decode errors, unknown paths, defects) in the spec's error
 * body. A request with a body is refused by its declared size (413), then its key is checked (401, 403,
 * 429) before any of its body is read; then the JSON content type (415), the 1 MB limit while streaming
 * (413) and the nesting depth (400). A body the answer did not need is drained
 * within bounds (see `settleUnreadBody`), so that every client reads its answer and none holds its
 * connection by sending slowly.
 */
export const EnvelopeMiddleware = HttpRouter.middleware(
  Effect.map(Effect.all([Admission, Routes, fastAnswersOf, TrustedProxies]), ([admission, routes, fast, proxies]) => {
    // Every failure is answered here; the type says otherwise only because the router asks it of a
    // global middleware.
    return (
      app: Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled>
    ): Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled, HttpServerRequest.HttpServerRequest> =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const incoming = incomingOf(request)
        if (arrivedAfterClose(incoming)) {
          incoming.socket.destroy()
          return HttpServerResponse.empty({ status: 400 })
        }
        const state = newRequestState(randomUUID())
        const requestId = state.id
        // The server's request span, when tracing is on, carries the id the client sees (a lookup otherwise).
        const span = yield* Effect.serviceOption(Tracer.ParentSpan)
        const traced = span._tag === "Some" && span.value._tag === "Span"
        if (traced) span.value.attribute("request_id", requestId)
        const contentLength = request.headers["content-length"]
        const hasBody =
          (contentLength !== undefined && contentLength !== "0") || request.headers["transfer-encoding"] !== undefined
        // The request's route, for every question below. A request with a body is admitted before its body
        // is read, and left to the router, which reuses that admission.
        const found = routes.find(request.method, request.url)
        const fastAnswered = hasBody || found === undefined ? undefined : fast(request, found)
        const fastAnswer = fastAnswered === undefined ? undefined : answeringDeclared(fastAnswered, requestId)
        // Traced, the answer runs in its "use case" span, which HttpApi's router names with the route
        // (`http.route`) once it has found it; a fast answer's route is named here.
        const served: Effect.Effect<
          HttpServerResponse.HttpServerResponse,
          unknown,
          HttpServerRequest.HttpServerRequest
        > = !traced
          ? (fastAnswer ?? app)
          : fastAnswer === undefined
            ? Effect.withSpan(app, "use case", { captureStackTrace: false })
            : Effect.withSpan(fastAnswer, "use case", {
                captureStackTrace: false,
                attributes: { "http.route": found!.route.template }
              })
        const media = found?.route.multipart === true
        const limit = routes.bodyLimit(found)
        const needsKey = routes.needsKey(request.url, found)
        // The request as the handler sees it: with its body buffered, once read (a write's handler decodes it).
        let bodied = request
        const handled = Effect.gen(function* () {
          // Refused after the key is checked, as the lists' query is (the route would admit it first).
          const refusedNames = refusedQueryNames(request.url, found)
          const refuseQuery = () =>
            respond(requestId, 422, {
              code: "validation_failed",
              ...issueDetails(
                "query parameters are not valid",
                refusedNames.map((name) => ({ path: `query.${name}`, message: "is not an allowed property" }))
              )
            })
          if (!hasBody) {
            if (refusedNames.length === 0) return yield* served
            if (needsKey) state.admitted = yield* admission.admit(request)
            return refuseQuery()
          }
          if (declaresOver(contentLength, limit)) {
            return respond(requestId, 413, {
              code: "payload_too_large",
              message: media ? "images are limited to 10 MB" : `JSON bodies are limited to ${maxJsonBytes} bytes`
            })
          }
          if (needsKey) state.admitted = yield* admission.admit(request)
          // No route takes it: the router can only answer 404, so the body is not read (nor scanned) first.
          if (found === undefined && routes.templateOf(request.method, request.url) === unmatched)
            return routeNotFound(requestId)
          if (refusedNames.length > 0) return refuseQuery()
          // A route outside the contract (a mount such as the panel's forms) reads its own body, within the limit.
          if (found === undefined) return yield* served
          // POST /media streams its multipart body to staging itself.
          if (media && isMultipart(request.headers["content-type"])) return yield* served
          if (!isJson(request.headers["content-type"]) || media) {
            return respond(requestId, 415, {
              code: "unsupported_media_type",
              message: media ? "send the upload as multipart/form-data" : "send the body as application/json"
            })
          }
          const body = yield* Effect.result(readLimited(request, maxJsonBytes))
          if (Result.isFailure(body)) {
            return body.failure instanceof BodyTooLarge
              ? respond(requestId, 413, {
                  code: "payload_too_large",
                  message: `JSON bodies are limited to ${maxJsonBytes} bytes`
                })
              : respond(requestId, 400, { code: "body_unreadable", message: "the request body could not be read" })
          }
          const { refusal, longNumbers } = jsonShape(body.success, { depth: maxJsonDepth, keys: maxJsonKeys })
          if (refusal === "too_deep") {
            return respond(requestId, 400, {
              code: "json_too_deep",
              message: `JSON nested deeper than ${maxJsonDepth} levels is not accepted`
            })
          }
          if (refusal === "too_many_keys") {
            return respond(requestId, 400, {
              code: "json_too_many_keys",
              message: `JSON naming more than ${maxJsonKeys} different object keys is not accepted`
            })
          }
          bodied = withBody(request, body.success, longNumbers)
          return yield* Effect.provideService(served, HttpServerRequest.HttpServerRequest, bodied)
        })
        const started = Date.now()
        const answered = yield* handled.pipe(
          Effect.catchCause((cause) => answerFailure(bodied, found, requestId, cause)),
          Effect.provideService(CurrentRequest, state)
        )
        // Retry-After is read from the byte body before settleUnreadBody may stream it.
        const withRetry = withRetryAfter(answered)
        const response = answerHeaders(hasBody ? settleUnreadBody(request, withRetry, limit) : withRetry, state)
        // One structured line per request: who called (the client's address, the key's public id and its
        // company) and what came of it; never headers or bodies, so secrets stay out of logs. Its
        // annotations cost more than a request's own work, so they are built only when it is written.
        if (LogLevel.isLessThanOrEqualTo(yield* References.MinimumLogLevel, "Info")) {
          yield* Effect.logInfo("request").pipe(
            Effect.annotateLogs({
              request_id: requestId,
              method: request.method,
              path: pathOf(request.url),
              status: response.status,
              duration_ms: Date.now() - started,
              client: state.client ?? originOf(request, proxies).address ?? null,
              key_id: state.admitted?.keyId ?? null,
              company_id: state.admitted?.company.id ?? null
            })
          )
        }
        return response
      })
  }),
  { global: true }
)

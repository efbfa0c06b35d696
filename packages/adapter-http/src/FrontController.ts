import { Principal } from "@catalog-sync/core"
import { Context, Effect, LogLevel, References, Result, Tracer, type Types } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { randomUUID } from "node:crypto"
import { type Admitted, Admission } from "./Admission.js"
import {
  BodyTooLarge,
  declaresOver,
  incomingOf,
  jsonShape,
  maxJsonBytes,
  maxJsonDepth,
  maxJsonKeys,
  readLimited,
  settleUnreadBody,
  withBody
} from "./BodyLimit.js"
import { originOf, TrustedProxies } from "./ClientOrigin.js"
import { issueDetails } from "./ErrorResponses.js"
import { answerFailure, answeringDeclared, respond, routeNotFound, withRetryAfter } from "./FailureAnswers.js"
import { FastAnswering, FastAnswers } from "./FastAnswer.js"
import { hostProblem } from "./HostCheck.js"
import { arrivedAfterClose } from "./LingeringClose.js"
import { refusedQueryNames } from "./RefusedQuery.js"
import { type AdmittedRequest, CurrentRequest, unadmitted } from "./RequestId.js"
import { type Found, pathOf, type Route, Routes, unmatched } from "./RouteTable.js"

/**
 * Headers of every answer: its request id and those its admission gathered (the RateLimit state);
 * `nosniff`, so that no answer is ever run as another type; and `no-store` unless the answer says how it
 * may be cached (the images and the portal do), since API answers hold keys' principals and tenant data
 * that no shared cache may keep.
 */
const answerHeaders = (response: HttpServerResponse.HttpServerResponse, admitted: AdmittedRequest) =>
  HttpServerResponse.setHeaders(response, {
    ...admitted.answerHeaders,
    "x-request-id": admitted.id,
    "x-content-type-options": "nosniff",
    ...(response.headers["cache-control"] === undefined ? { "cache-control": "no-store" } : {})
  })

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

/** The context a request's answer runs in: the admitted request, and the principal its key acts as. */
const contextOf = (admitted: AdmittedRequest) => {
  const context = Context.make(CurrentRequest, admitted)
  return admitted.principal === undefined
    ? context
    : Context.add(context, Principal.CurrentPrincipal, admitted.principal)
}

type Answering = Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, HttpServerRequest.HttpServerRequest>

/**
 * The front controller of the API: a global middleware of the router, so every request passes it (the
 * API's, the OpenAPI document's, those of the routes the server adds, and the 404 of a path none takes).
 * It gives each request its id (the X-Request-Id header and `request_id`), refuses an ambiguous host
 * (400), a body declared over its route's limit (413), then admits the request once, if its route needs a
 * key (401, 403, 429) and before any of its body is read; the admitted request and its principal are
 * provided to the rest of the answer (`CurrentRequest`, `Principal.CurrentPrincipal`). Then the JSON
 * content type (415), the 1 MB limit while streaming (413) and the nesting depth (400); then the route
 * answers, fast where it can (FastAnswer). Every failure that reaches it (decode errors, unknown paths,
 * defects) is rendered in the spec's error body. A body the answer did not need is drained within bounds
 * (see `settleUnreadBody`), so that every client reads its answer and none holds its connection by sending
 * slowly. Each request is logged in one line.
 */
export const FrontController = HttpRouter.middleware(
  Effect.map(Effect.all([Admission, Routes, fastAnswersOf, TrustedProxies]), ([admission, routes, fast, proxies]) => {
    // Every failure is answered here; the type says otherwise only because the router asks it of a
    // global middleware.
    return (
      app: Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled>
    ): Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled, HttpServerRequest.HttpServerRequest> =>
      Effect.withFiber((fiber) => {
        const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
        const incoming = incomingOf(request)
        if (arrivedAfterClose(incoming)) {
          incoming.socket.destroy()
          return Effect.succeed(HttpServerResponse.empty({ status: 400 }))
        }
        const started = Date.now()
        const requestId = randomUUID()
        // The server's request span, when tracing is on, carries the id the client sees.
        const span = Context.getOrUndefined(fiber.context, Tracer.ParentSpan)
        const traced = span !== undefined && span._tag === "Span"
        if (traced) span.attribute("request_id", requestId)
        const contentLength = request.headers["content-length"]
        const hasBody =
          (contentLength !== undefined && contentLength !== "0") || request.headers["transfer-encoding"] !== undefined
        const found = routes.find(request.method, request.url)
        const limit = routes.bodyLimit(found)

        // Every answer leaves through here: its headers, its unread body settled, its line in the log.
        const logged = LogLevel.isLessThanOrEqualTo(fiber.getRef(References.MinimumLogLevel), "Info")
        const finish = (answered: HttpServerResponse.HttpServerResponse, admitted: AdmittedRequest) => {
          // Retry-After is read from the byte body before settleUnreadBody may stream it.
          const withRetry = withRetryAfter(answered)
          const response = answerHeaders(hasBody ? settleUnreadBody(request, withRetry, limit) : withRetry, admitted)
          if (!logged) return Effect.succeed(response)
          // Who called (the client's address, the key's public id and its company) and what came of it;
          // never headers or bodies, so secrets stay out of logs. Built only when the line is written.
          return Effect.as(
            Effect.logInfo("request").pipe(
              Effect.annotateLogs({
                request_id: requestId,
                method: request.method,
                path: pathOf(request.url),
                status: response.status,
                duration_ms: Date.now() - started,
                client: admitted.client ?? originOf(request, proxies).address ?? null,
                key_id: admitted.principal?.keyId ?? null,
                company_id: admitted.principal?.company.id ?? null
              })
            ),
            response
          )
        }

        const badHost = hostProblem(incoming, proxies)
        if (badHost !== undefined) {
          const refused = respond(requestId, 400, { code: "invalid_host", message: badHost })
          return finish(HttpServerResponse.setHeader(refused, "connection", "close"), unadmitted(requestId))
        }
        const media = found?.route.multipart === true
        if (hasBody && declaresOver(contentLength, limit)) {
          const tooLarge = respond(requestId, 413, {
            code: "payload_too_large",
            message: media ? "images are limited to 10 MB" : `JSON bodies are limited to ${maxJsonBytes} bytes`
          })
          return finish(tooLarge, unadmitted(requestId))
        }
        // Refused after the key is checked, as the lists' query is (the route would admit it first).
        const refusedNames = refusedQueryNames(request.url, found)
        // A request without a body to a path no route takes is the router's 404, asked for no key.
        const admitting: Effect.Effect<Admitted> =
          routes.needsKey(request.url, found) && (hasBody || found !== undefined || refusedNames.length > 0)
            ? admission.admit(request, requestId)
            : Effect.succeed({ request: unadmitted(requestId), refusal: undefined })

        // The route's fast answer, if it has one for this request (looked up before admission, so that a
        // refused request is offered it as the router's route would be).
        const fastAnswered = hasBody || found === undefined ? undefined : fast(request, found)
        const fastAnswer = fastAnswered === undefined ? undefined : answeringDeclared(fastAnswered, requestId)
        // The route's answer. Traced, the answer of a request without a body runs in its "use case" span,
        // its admission included, as HttpApi's route would run it; with a body, only the route's answer
        // does. HttpApi's router names the span with the route (`http.route`) once it has found it; a fast
        // answer's or a refusal's route is named here.
        const useCase = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
          Effect.withSpan(effect, "use case", {
            captureStackTrace: false,
            ...(found === undefined ? {} : { attributes: { "http.route": found.route.template } })
          })
        const served = (): Answering => {
          if (fastAnswer !== undefined) return traced && hasBody ? useCase(fastAnswer) : fastAnswer
          return traced && hasBody ? Effect.withSpan(app, "use case", { captureStackTrace: false }) : app
        }
        const refuseQuery = () =>
          respond(requestId, 422, {
            code: "validation_failed",
            ...issueDetails(
              "query parameters are not valid",
              refusedNames.map((name) => ({ path: `query.${name}`, message: "is not an allowed property" }))
            )
          })
        // The request as the handler sees it: with its body buffered, once read (a write's handler decodes it).
        let bodied = request
        const withBodyRead = Effect.gen(function* () {
          // No route takes it: the router can only answer 404, so the body is not read (nor scanned) first.
          if (found === undefined && routes.templateOf(request.method, request.url) === unmatched)
            return routeNotFound(requestId)
          if (refusedNames.length > 0) return refuseQuery()
          // A route outside the contract (a mount such as the panel's forms) reads its own body, within the limit.
          if (found === undefined) return yield* served()
          // POST /media streams its multipart body to staging itself.
          if (media && isMultipart(request.headers["content-type"])) return yield* served()
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
          return yield* Effect.provideService(served(), HttpServerRequest.HttpServerRequest, bodied)
        })

        // Who the request was admitted as, for its answer's headers and its log line, whatever the answer.
        let admitted = unadmitted(requestId)
        const answered = Effect.flatMap(admitting, (admission) => {
          admitted = admission.request
          if (admission.refusal !== undefined)
            return Effect.succeed(respond(requestId, admission.refusal.status, admission.refusal.error))
          const answering: Answering = hasBody
            ? withBodyRead
            : refusedNames.length > 0
              ? Effect.succeed(refuseQuery())
              : served()
          return Effect.provideContext(answering, contextOf(admitted))
        })
        return (traced && !hasBody ? useCase(answered) : answered).pipe(
          Effect.catchCause((cause) => answerFailure(bodied, found, requestId, cause)),
          Effect.flatMap((response) => finish(response, admitted))
        )
      })
  }),
  { global: true }
)

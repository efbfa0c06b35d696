import type { DomainError, IdempotencyStore, Principal, Transactor } from "@catalog-sync/core"
import { Errors, type WriteCommand, WriteRunner } from "@catalog-sync/core"
import { BoundedDecode } from "@catalog-sync/core/adapter-support"
import { Effect, type Result } from "effect"
import { HttpServerRequest } from "effect/http"
import { mayHoldInexactNumbers } from "./BodyLimit.js"
import { api, type ApiErrorOf } from "./ErrorResponses.js"
import { inexactNumbers } from "./JsonNumbers.js"
import { requestId } from "./RequestId.js"
import { pathOf, type RouteTable, Routes } from "./RouteTable.js"

/** What a write fails with: its command's errors and the write runner's own (idempotency, storage). */
export type WriteFailure<E> = Effect.Error<ReturnType<typeof WriteRunner.runWrite<object, E, never>>>

/**
 * Hands a write to core's write runner under the request's Idempotency-Key (the operation is the
 * request's method and its route's path, see `operationOf`) and shapes the envelope: the result, `request_id` and, for a repeat of a
 * completed write, `replayed: true`.
 */
export const writeEnvelope = <A extends object, E extends DomainError, R>(
  idempotencyKey: string,
  payload: unknown,
  command: WriteCommand.WriteCommand<A, E, R>
): Effect.Effect<
  A & { readonly request_id: string; readonly replayed?: true },
  ApiErrorOf<WriteFailure<E>>,
  | R
  | HttpServerRequest.HttpServerRequest
  | Principal.CurrentPrincipal
  | IdempotencyStore.IdempotencyStore
  | Transactor.Transactor
> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const operation = operationOf(yield* Routes, request.method, request.url)
    const outcome = yield* api(WriteRunner.runWrite({ idempotencyKey, operation, payload }, command))
    return { ...outcome.result, request_id: yield* requestId, ...(outcome.replayed ? { replayed: true as const } : {}) }
  })

/**
 * A write's operation in its fingerprint: the method and the route's declared path with its parameters
 * filled in, so that every spelling the router takes for one endpoint and record (letter case, doubled or
 * trailing slashes, an escaped character, a uuid's letter case) is one operation, and a retry spelled
 * otherwise is replayed. For the paths clients send (`/api/v1/products/upsert`, `/api/v1/jobs/j_1/cancel`)
 * it is the path as sent.
 */
export const operationOf = (routes: RouteTable, method: string, url: string) => {
  const found = routes.find(method, url)
  if (found === undefined) return `${method} ${pathOf(url)}`
  const path = found.route.template.replace(/:(\w+)/g, (_, name: string) =>
    encodeURIComponent(canonicalParam(found.params[name] ?? ""))
  )
  return `${method} ${path}`
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A uuid in lowercase, the form the handlers canonicalise it to (`Ids.Uuid`); anything else as sent. */
const canonicalParam = (value: string) => (uuid.test(value) ? value.toLowerCase() : value)

/**
 * The JSON body of a write, decoded once and with bounded work (`Decode.decoderOf`: lists held to their
 * limits before their items are decoded, the first failing locations listed): its failure is the 422
 * `validation_failed`. `authorize` runs first, on the body as sent (it is never decoded otherwise), so
 * that a key that may not make the write gets its 403 without the body being decoded. The write's
 * handler takes its request raw (HttpApi decodes no body), so that this is the body's only decode. A
 * number literal `JSON.parse` cannot hold exactly (`JsonNumbers`) is refused at its path before the
 * decode, which would only see the rewritten value.
 */
export const decodedBody = <A, E extends DomainError, R>(
  decode: (json: unknown) => Result.Result<A, Errors.ValidationFailed>,
  authorize: (json: unknown) => Effect.Effect<void, E, R>
): Effect.Effect<A, ApiErrorOf<E | Errors.ValidationFailed>, R | HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    // Bytes the envelope read; JSON that does not parse dies here, and the envelope answers 400 malformed_json.
    const json = yield* Effect.orDie(request.json)
    yield* api(authorize(json))
    // Scanned only when the envelope's pass over the bytes met a long number literal.
    const inexact = mayHoldInexactNumbers(request)
      ? inexactNumbers(yield* Effect.orDie(request.text), BoundedDecode.maxIssues + 1)
      : []
    if (inexact.length > 0)
      return yield* api(Effect.fail(new Errors.ValidationFailed({ message: "the body is not valid", issues: inexact })))
    return yield* api(Effect.fromResult(decode(json)))
  })

/** How a raw write's body is read: checked against the key as sent, then decoded (see `decodedBody`). */
export interface WriteBody<Request, P, E extends DomainError, R> {
  readonly decode: (json: unknown) => Result.Result<P, Errors.ValidationFailed>
  readonly authorize: (json: unknown, request: Request) => Effect.Effect<void, E, R>
}

/**
 * The handler of a write endpoint, registered with `handleRaw` (Answers.ts): HttpApi decodes no body (the
 * endpoint's payload schema stays declared for the document); `body` reads it once (`decodedBody`), then
 * `write` runs with the decoded payload and the endpoint's decoded request (path, headers).
 */
export const rawWrite =
  <Request, P, E extends DomainError, R, A, E2, R2>(
    body: WriteBody<Request, P, E, R>,
    write: (payload: P, request: Request) => Effect.Effect<A, E2, R2>
  ) =>
  (request: Request) =>
    Effect.flatMap(
      decodedBody(body.decode, (json) => body.authorize(json, request)),
      (payload) => write(payload, request)
    )

import { HttpServerRequest } from "@effect/platform"
import type { DomainError, IdempotencyStore, Principal, Transactor } from "@catalog-sync/core"
import { type WriteCommand, WriteRunner } from "@catalog-sync/core"
import { Effect } from "effect"
import { api, type ApiErrorOf } from "./ErrorResponses.js"
import { requestId } from "./RequestId.js"

/** What a write fails with: its command's errors and the write runner's own (idempotency, storage). */
export type WriteFailure<E> = Effect.Effect.Error<ReturnType<typeof WriteRunner.runWrite<object, E, never>>>

/**
 * Hands a write to core's write runner under the request's Idempotency-Key (the operation is the
 * request's method and path) and shapes the envelope: the result, `request_id` and, for a repeat of a
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
    const operation = `${request.method} ${request.url.split("?")[0] ?? request.url}`
    const outcome = yield* api(WriteRunner.runWrite({ idempotencyKey, operation, payload }, command))
    return { ...outcome.result, request_id: yield* requestId, ...(outcome.replayed ? { replayed: true as const } : {}) }
  })

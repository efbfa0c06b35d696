import { Clock, Context, Duration, Effect, Schema } from "effect"
import { CurrentPrincipal } from "../Auth/Principal.js"
import { Transactor } from "../Shared/Transactor.js"
import { IdempotencyStore, type StoredResponse } from "./IdempotencyStore.js"

/** Idempotency-Key: 8-120 characters of letters, digits and `._:-`. */
export const IdempotencyKey = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9._:-]{8,120}$/, { message: () => "must match ^[A-Za-z0-9._:-]{8,120}$" })
)

/**
 * How long a running request holds its key: a retry within it is told `idempotency_in_progress`; after
 * it, a retry takes the key over (the first request is presumed dead, and rolls back if it is not).
 * 60 s unless the server is configured otherwise.
 */
export class ClaimLease extends Context.Reference<ClaimLease>()("@catalog-sync/core/Idempotency/ClaimLease", {
  defaultValue: (): Duration.Duration => Duration.seconds(60)
}) {}

/** Keys are kept for at least 24 hours (spec: retained at least 24 h); we keep them 48. */
export const retentionMillis = 48 * 3_600_000

/** The same key was used for a different request, or the first request with it is still running. */
export class IdempotencyConflict extends Schema.TaggedError<IdempotencyConflict>()("IdempotencyConflict", {
  reason: Schema.Literal("idempotency_key_reused", "idempotency_in_progress"),
  message: Schema.String
}) {
  get code(): "idempotency_key_reused" | "idempotency_in_progress" {
    return this.reason
  }
}

export interface IdempotentResult {
  readonly response: StoredResponse
  readonly replayed: boolean
}

/**
 * Runs a write at most once per key. The write and its stored response commit in one transaction; a
 * repeat with the same fingerprint gets the stored response, a different fingerprint a conflict. A
 * failed write releases the key so that a retry with it runs again.
 */
export const runIdempotent = <E, R>(key: string, fingerprint: string, write: Effect.Effect<StoredResponse, E, R>) =>
  Effect.gen(function* () {
    const principal = yield* CurrentPrincipal
    const store = yield* IdempotencyStore
    const transactor = yield* Transactor
    const scope = { companyId: principal.company.id, connectionId: principal.connectionId }
    const nowMillis = yield* Clock.currentTimeMillis
    const leaseMillis = Duration.toMillis(yield* ClaimLease)
    const claim = yield* store.claim({ scope, key, fingerprint, nowMillis, leaseMillis, retentionMillis })
    switch (claim._tag) {
      case "Replay":
        return { response: claim.response, replayed: true } satisfies IdempotentResult
      case "Mismatch":
        return yield* new IdempotencyConflict({
          reason: "idempotency_key_reused",
          message: "this Idempotency-Key was used for a different request; use a new key for a new operation"
        })
      case "InProgress":
        return yield* new IdempotencyConflict({
          reason: "idempotency_in_progress",
          message: "a request with this Idempotency-Key is still running; retry it later with the same key"
        })
      case "Started":
        break
    }
    const token = claim.token
    const response = yield* transactor
      .withTransaction(
        Effect.tap(write, (response) =>
          Clock.currentTimeMillis.pipe(
            Effect.flatMap((at) => store.complete(scope, key, token, response, at)),
            // Ran past the lease and a retry took the key over: the retry owns the operation, so this
            // write rolls back rather than happen twice.
            Effect.filterOrFail(
              (kept) => kept,
              () =>
                new IdempotencyConflict({
                  reason: "idempotency_in_progress",
                  message: "this request outlived its claim on the Idempotency-Key and another request with the key took over; retry later with the same key to read its outcome"
                })
            )
          )
        )
      )
      .pipe(Effect.onError(() => store.release(scope, key, token).pipe(Effect.ignore)))
    return { response, replayed: false } satisfies IdempotentResult
  })

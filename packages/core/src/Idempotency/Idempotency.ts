import { Clock, Context, Duration, Effect, Exit, Schedule, Schema } from "effect"
import { matching } from "../internal/Shared/Text.js"
import { CurrentPrincipal } from "../Auth/Principal.js"
import type { PersistenceError } from "../Shared/Errors.js"
import { Transactor } from "../Shared/Transactor.js"
import { type Claim, type IdempotencyScope, IdempotencyStore, type StoredResponse } from "./IdempotencyStore.js"

/** Idempotency-Key: 8-120 characters of letters, digits and `._:-`. */
export const IdempotencyKey = Schema.String.check(
  matching(/^[A-Za-z0-9._:-]{8,120}$/, "must match ^[A-Za-z0-9._:-]{8,120}$")
)

/**
 * How long a running request holds its key: a retry within it is told `idempotency_in_progress`; after
 * it, a retry takes the key over (the first request is presumed dead, and rolls back if it is not).
 * 60 s unless the server is configured otherwise.
 */
export const ClaimLease = Context.Reference<Duration.Duration>("@catalog-sync/core/Idempotency/ClaimLease", {
  defaultValue: () => Duration.seconds(60)
})

/** Keys are kept for at least 24 hours (spec: retained at least 24 h); we keep them 48. */
export const retentionMillis = 48 * 3_600_000

/** The same key was used for a different request, or the first request with it is still running. */
export class IdempotencyConflict extends Schema.TaggedError<IdempotencyConflict>()("IdempotencyConflict", {
  reason: Schema.Literals(["idempotency_key_reused", "idempotency_in_progress"]),
  message: Schema.String
}) {
  get code(): "idempotency_key_reused" | "idempotency_in_progress" {
    return this.reason
  }
}

/** A write's answer, and whether it was replayed from the store. */
export interface IdempotentResult {
  readonly response: StoredResponse
  readonly replayed: boolean
}

/** How often a failed release is tried again (on a fresh connection) before the claim is left to its lease. */
const releaseRetries = Schedule.max([Schedule.recurs(2), Schedule.spaced("50 millis")])

/**
 * Runs a write at most once per key. The write and its stored response commit in one transaction; a
 * repeat with the same fingerprint gets the stored response, a different fingerprint a conflict.
 *
 * Over a store whose claims roll back with a transaction (the SQL ones), the claim is made in that same
 * transaction: one commit per write, and a repeat sent while the first runs waits for it where the
 * database makes it wait (the key's unique index on PostgreSQL, the one connection on SQLite), then
 * replays its answer, or runs the write itself if the first failed and rolled its claim back.
 *
 * Over another store (the in-memory one) the claim commits first, and a repeat meanwhile is told
 * `idempotency_in_progress`; the claim and its release are then an acquire/release pair.
 *
 * Either way, whenever this request stops (done, failed, or interrupted because its client went away),
 * its claim has committed with the write or is gone. The claim's statement runs to its end even when the
 * request is interrupted while it is in flight, so no claim is made that nobody knows about. Only a
 * process that dies leaves a claim to its lease, and then only one that committed on its own.
 */
export const runIdempotent = <E, R>(key: string, fingerprint: string, write: Effect.Effect<StoredResponse, E, R>) =>
  Effect.flatMap(CurrentPrincipal, (principal) =>
    runIdempotentIn({ companyId: principal.company.id, connectionId: principal.connectionId }, key, fingerprint, write)
  )

/** `runIdempotent` in a given connection's scope, for a caller without a principal (the panel's forms). */
export const runIdempotentIn = <E, R>(
  scope: IdempotencyScope,
  key: string,
  fingerprint: string,
  write: Effect.Effect<StoredResponse, E, R>
) =>
  Effect.gen(function* () {
    const store = yield* IdempotencyStore
    const transactor = yield* Transactor
    const leaseMillis = Duration.toMillis(yield* ClaimLease)
    const claimKey = Effect.flatMap(Clock.currentTimeMillis, (nowMillis) =>
      store.claim({ scope, key, fingerprint, nowMillis, leaseMillis, retentionMillis })
    )

    const runClaimed = (
      claim: Claim
    ): Effect.Effect<IdempotentResult, E | IdempotencyConflict | PersistenceError, R> => {
      switch (claim._tag) {
        case "Replay":
          return Effect.succeed({ response: claim.response, replayed: true })
        case "Mismatch":
          return new IdempotencyConflict({
            reason: "idempotency_key_reused",
            message: "this Idempotency-Key was used for a different request; use a new key for a new operation"
          })
        case "InProgress":
          return new IdempotencyConflict({
            reason: "idempotency_in_progress",
            message: "a request with this Idempotency-Key is still running; retry it later with the same key"
          })
        case "Started":
          return Effect.tap(write, (response) =>
            Clock.currentTimeMillis.pipe(
              Effect.flatMap((at) => store.complete(scope, key, claim.token, response, at)),
              // Ran past the lease and a retry took the key over: the retry owns the operation, so this
              // write rolls back rather than happen twice.
              Effect.filterOrFail(
                (kept) => kept,
                () =>
                  new IdempotencyConflict({
                    reason: "idempotency_in_progress",
                    message:
                      "this request outlived its claim on the Idempotency-Key and another request with the key took over; retry later with the same key to read its outcome"
                  })
              )
            )
          ).pipe(Effect.map((response) => ({ response, replayed: false })))
      }
    }

    const claimThenWrite = (claim: Claim) =>
      claim._tag === "Started" ? transactor.withTransaction(runClaimed(claim)) : runClaimed(claim)

    // A failed, rolled-back or interrupted write frees the key; after a commit the release is a no-op
    // (it drops only a running claim with this token), so an interruption that lands after the commit
    // cannot lose the stored response.
    const releaseUnlessDone = (claim: Claim, exit: Exit.Exit<unknown, unknown>) =>
      claim._tag === "Started" && Exit.isFailure(exit)
        ? store.release(scope, key, claim.token).pipe(Effect.retry(releaseRetries), Effect.ignore)
        : Effect.void

    const claimAndWrite: Effect.Effect<IdempotentResult, E | IdempotencyConflict | PersistenceError, R> =
      store.claimsRollBack === true
        ? transactor.withTransaction(Effect.flatMap(Effect.uninterruptible(claimKey), runClaimed))
        : Effect.acquireUseRelease(claimKey, claimThenWrite, releaseUnlessDone)
    return yield* claimAndWrite
  })

import { Context, type Effect } from "effect"
import type { PersistenceError } from "../Shared/Errors.js"
import type { CompanyId, ConnectionId } from "../Shared/Ids.js"

/** Idempotency keys are scoped to the connection. */
export interface IdempotencyScope {
  readonly companyId: CompanyId
  readonly connectionId: ConnectionId
}

/** The final response of a completed request, replayed for a repeat of it. */
export interface StoredResponse {
  readonly status: number
  readonly body: unknown
}

/** What a claim on a key found. */
export type Claim =
  /**
   * This request holds the key. `token` fences the claim: `complete` and `release` act only while the row
   * still carries it, so a request that ran past its lease and lost the key to a retry cannot commit.
   */
  | { readonly _tag: "Started"; readonly token: number }
  | { readonly _tag: "Replay"; readonly response: StoredResponse }
  | { readonly _tag: "Mismatch" }
  | { readonly _tag: "InProgress" }

/** A claim of a key for one request. */
export interface ClaimRequest {
  readonly scope: IdempotencyScope
  readonly key: string
  /** Method, path and body hash of the request. */
  readonly fingerprint: string
  readonly nowMillis: number
  /** How long a running claim holds before another request may take it over (a crashed worker). */
  readonly leaseMillis: number
  /** Completed keys older than this are forgotten and may be used again. */
  readonly retentionMillis: number
}

/**
 * Durable idempotency records. `claim` is atomic across instances: of two requests with one key, one
 * starts and the other sees InProgress, or (a store whose claims roll back, in the write's transaction)
 * waits for the first to end. `complete` runs inside the transaction of the protected write, so the
 * stored response and the write commit together; it reports false when the claim was taken over (its
 * token is gone), and the caller then rolls the write back.
 */
export class IdempotencyStore extends Context.Service<
  IdempotencyStore,
  {
    readonly claim: (request: ClaimRequest) => Effect.Effect<Claim, PersistenceError>
    /** Claims are made in the write's transaction and undone by its rollback (one commit per write). */
    readonly claimsRollBack?: boolean | undefined
    readonly complete: (
      scope: IdempotencyScope,
      key: string,
      token: number,
      response: StoredResponse,
      nowMillis: number
    ) => Effect.Effect<boolean, PersistenceError>
    /** Drops a running claim whose request stopped without committing (failed, rolled back, interrupted), so that a retry runs it again; a no-op once completed or taken over. */
    readonly release: (scope: IdempotencyScope, key: string, token: number) => Effect.Effect<void, PersistenceError>
    /**
     * Deletes records claimed before the cutoff: completed ones past their retention, and running ones
     * left by requests that died (their lease expired long ago, so no request can complete them).
     */
    readonly purge: (olderThanMillis: number) => Effect.Effect<number, PersistenceError>
    /**
     * Drops every running claim; returns how many. Only for a start at which no request of any process
     * can be running (the single-instance SQLite server after a crash): retries of the requests a crash
     * cut off then run at once instead of answering `idempotency_in_progress` until the lease ends.
     */
    readonly releaseAll: Effect.Effect<number, PersistenceError>
  }
>()("@catalog-sync/core/IdempotencyStore") {}

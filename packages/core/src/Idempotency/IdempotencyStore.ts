import { Context, type Effect } from "effect"
import type { PersistenceError } from "../Catalog/CatalogErrors.js"
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
  | { readonly _tag: "Started" }
  | { readonly _tag: "Replay"; readonly response: StoredResponse }
  | { readonly _tag: "Mismatch" }
  | { readonly _tag: "InProgress" }

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
 * starts and the other sees InProgress. `complete` runs inside the transaction of the protected write,
 * so the stored response and the write commit together.
 */
export class IdempotencyStore extends Context.Tag("@catalog-sync/core/IdempotencyStore")<
  IdempotencyStore,
  {
    readonly claim: (request: ClaimRequest) => Effect.Effect<Claim, PersistenceError>
    readonly complete: (scope: IdempotencyScope, key: string, response: StoredResponse, nowMillis: number) => Effect.Effect<void, PersistenceError>
    /** Drops a running claim whose request failed, so that a retry runs it again. */
    readonly release: (scope: IdempotencyScope, key: string) => Effect.Effect<void, PersistenceError>
    /** Deletes completed records older than the cutoff. */
    readonly purge: (olderThanMillis: number) => Effect.Effect<number, PersistenceError>
  }
>() {}

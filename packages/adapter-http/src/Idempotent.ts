import { HttpServerRequest } from "@effect/platform"
import { Idempotency, type IdempotencyStore, Principal, type Transactor } from "@catalog-sync/core"
import type { ApiError } from "./ApiErrors.js"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { api } from "./Failures.js"
import { requestId } from "./RequestId.js"

/** JSON with object keys sorted, so that the same body always hashes the same. */
const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v
  )

/** The read scopes a response was rendered for: a replay must not show more than the caller may read. */
const readScopes = (principal: Principal.Principal) =>
  Array.from(principal.scopes)
    .filter((scope) => scope.endsWith(":read"))
    .sort()
    .join(",")

/**
 * Runs a write under its Idempotency-Key: the request is fingerprinted by method, path, body and the
 * read scopes its response was rendered for; the stored response (without its request_id) is replayed
 * with `replayed: true` for a repeat. `authorize` runs first, on every attempt, so a key without the
 * write scopes is refused even when the operation was completed by another key.
 */
export const idempotentWrite = <A extends object, E, R, E2 = never, R2 = never>(
  key: string,
  payload: unknown,
  write: Effect.Effect<A, E, R>,
  authorize: Effect.Effect<void, E2, R2> = Effect.void as Effect.Effect<void, E2, R2>
): Effect.Effect<
  A & { readonly request_id: string; readonly replayed?: boolean },
  ApiError,
  R | R2 | HttpServerRequest.HttpServerRequest | Principal.CurrentPrincipal | IdempotencyStore.IdempotencyStore | Transactor.Transactor
> =>
  Effect.gen(function* () {
    yield* api(authorize)
    const request = yield* HttpServerRequest.HttpServerRequest
    const principal = yield* Principal.CurrentPrincipal
    const path = request.url.split("?")[0] ?? request.url
    const fingerprint = createHash("sha256")
      .update(`${request.method} ${path}\n${readScopes(principal)}\n${canonicalJson(payload)}`)
      .digest("hex")
    const result = yield* api(
      Idempotency.runIdempotent(key, fingerprint, Effect.map(write, (body) => ({ status: 200, body })))
    )
    return {
      ...(result.response.body as A),
      request_id: yield* requestId,
      ...(result.replayed ? { replayed: true } : {})
    }
  })

import { HttpServerRequest } from "@effect/platform"
import { Idempotency, type IdempotencyStore, type Principal, type Transactor } from "@catalog-sync/core"
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

/**
 * Runs a write under its Idempotency-Key: the request is fingerprinted by method, path and body; the
 * stored response (without its request_id) is replayed with `replayed: true` for a repeat.
 */
export const idempotentWrite = <A extends object, E, R>(
  key: string,
  payload: unknown,
  write: Effect.Effect<A, E, R>
): Effect.Effect<
  A & { readonly request_id: string; readonly replayed?: boolean },
  ApiError,
  R | HttpServerRequest.HttpServerRequest | Principal.CurrentPrincipal | IdempotencyStore.IdempotencyStore | Transactor.Transactor
> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const path = request.url.split("?")[0] ?? request.url
    const fingerprint = createHash("sha256").update(`${request.method} ${path}\n${canonicalJson(payload)}`).digest("hex")
    const result = yield* api(
      Idempotency.runIdempotent(key, fingerprint, Effect.map(write, (body) => ({ status: 200, body })))
    )
    return {
      ...(result.response.body as A),
      request_id: yield* requestId,
      ...(result.replayed ? { replayed: true } : {})
    }
  })

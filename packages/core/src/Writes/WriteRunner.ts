import { Effect, Ref } from "effect"
import { CurrentPrincipal, type Principal } from "../Auth/Principal.js"
import { runIdempotent } from "../Idempotency/Idempotency.js"
import { Sha256 } from "../Shared/Sha256.js"
import { admit, type WriteCommand } from "./WriteCommand.js"
import { isJsonObject, type JsonObjectBuilder } from "../internal/json.js"

/** A write request as the client sent it: what makes a repeat of it recognisable. */
export interface WriteRequest {
  /** The client's Idempotency-Key. */
  readonly idempotencyKey: string
  /** Method and path as sent, e.g. `POST /api/v1/products/upsert`. */
  readonly operation: string
  /** The body (or, for an upload, its fields and the file's hash). */
  readonly payload: unknown
}

/** What a write answers: the use case's result, or the stored result of the first request with the key. */
export interface WriteOutcome<A> {
  readonly result: A
  readonly replayed: boolean
}

/**
 * A copy of a JSON value with each object's keys assigned in sorted order (JavaScript then lists array
 * indices first, ascending, as an object built from sorted entries does).
 */
const sortedCopy = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortedCopy)
  if (!isJsonObject(value)) return value
  const copy: JsonObjectBuilder = {}
  for (const key of Object.keys(value).sort()) {
    // Assigned, `__proto__` would set the copy's prototype instead of adding the key.
    if (key === "__proto__") Object.defineProperty(copy, key, { value: sortedCopy(value[key]), enumerable: true })
    else copy[key] = sortedCopy(value[key])
  }
  return copy
}

/**
 * JSON with object keys sorted, so that the same body always hashes the same, written by `JSON.stringify`
 * itself: a replacer sorting each object's entries took several times as long (~50 ms for a 1 MB import
 * of small objects).
 */
export const canonicalJson = (value: unknown): string => JSON.stringify(sortedCopy(value))

/** The read scopes a response was rendered for: a replay must not show more than the caller may read. */
const readScopes = (principal: Principal) =>
  Array.from(principal.scopes)
    .filter((scope) => scope.endsWith(":read"))
    .sort()
    .join(",")

/** A request's fingerprint: the operation, the read scopes its answer was rendered for, and the body. */
export const fingerprint = (request: WriteRequest, principal: Principal) =>
  Effect.flatMap(Sha256, (sha256) =>
    sha256.hash(`${request.operation}\n${readScopes(principal)}\n${canonicalJson(request.payload)}`)
  )

/**
 * The write pipeline, once for every write of the API: authorizes the command (on every attempt, so a key
 * without the write scopes is refused even when another key completed the operation), claims the
 * Idempotency-Key, runs the command in one transaction with the stored answer, then runs its after-commit
 * effect. A repeat with the same fingerprint gets the stored answer (`replayed`); see `runIdempotent`.
 */
export const runWrite = <A extends object, E, R>(request: WriteRequest, command: WriteCommand<A, E, R>) =>
  Effect.gen(function* () {
    const ran = yield* Ref.make(false)
    const outcome = yield* Effect.gen(function* () {
      yield* command.authorize
      yield* admit(command)
      const principal = yield* CurrentPrincipal
      const key = yield* fingerprint(request, principal)
      const work = Effect.andThen(
        Ref.set(ran, true),
        Effect.map(command.run, (body) => ({ status: 200, body }))
      )
      const result = yield* runIdempotent(request.idempotencyKey, key, work)
      return { result: result.response.body as A, replayed: result.replayed } satisfies WriteOutcome<A>
    }).pipe(
      Effect.ensuring(
        command.unused === undefined
          ? Effect.void
          : Effect.flatMap(Ref.get(ran), (started) => (started ? Effect.void : command.unused!))
      )
    )
    if (!outcome.replayed && command.afterCommit !== undefined) yield* command.afterCommit
    return outcome
  }).pipe(Effect.scoped)

import { Effect, Layer } from "effect"
import {
  type Claim,
  type IdempotencyScope,
  IdempotencyStore,
  type StoredResponse
} from "../Idempotency/IdempotencyStore.js"

/** Idempotency records in memory, with the same claim rules as the SQL store. */
export const idempotencyLayer = Layer.sync(IdempotencyStore, () => {
  const rows = new Map<
    string,
    {
      fingerprint: string
      state: "running" | "completed"
      leaseUntil: number
      createdAt: number
      response: StoredResponse | null
    }
  >()
  const keyOf = (scope: IdempotencyScope, key: string) => `${scope.companyId}|${scope.connectionId}|${key}`
  return IdempotencyStore.of({
    claim: (request) =>
      Effect.sync((): Claim => {
        const id = keyOf(request.scope, request.key)
        const row = rows.get(id)
        const fresh = () => {
          rows.set(id, {
            fingerprint: request.fingerprint,
            state: "running",
            leaseUntil: request.nowMillis + request.leaseMillis,
            createdAt: request.nowMillis,
            response: null
          })
          return { _tag: "Started", token: request.nowMillis + request.leaseMillis } as const
        }
        if (row === undefined || row.createdAt + request.retentionMillis <= request.nowMillis) return fresh()
        if (row.fingerprint !== request.fingerprint) return { _tag: "Mismatch" }
        if (row.state === "completed" && row.response !== null) return { _tag: "Replay", response: row.response }
        if (row.leaseUntil > request.nowMillis) return { _tag: "InProgress" }
        return fresh()
      }),
    // The lease end a claim wrote is its token: a takeover writes a later one.
    complete: (scope, key, token, response) =>
      Effect.sync(() => {
        const row = rows.get(keyOf(scope, key))
        if (row === undefined || row.state !== "running" || row.leaseUntil !== token) return false
        rows.set(keyOf(scope, key), { ...row, state: "completed", response })
        return true
      }),
    release: (scope, key, token) =>
      Effect.sync(() => {
        // Only this running claim: a completed key must keep replaying its response.
        const row = rows.get(keyOf(scope, key))
        if (row?.state === "running" && row.leaseUntil === token) rows.delete(keyOf(scope, key))
      }),
    purge: (olderThanMillis) =>
      Effect.sync(() => {
        let removed = 0
        for (const [id, row] of rows) {
          const abandoned = row.state === "running" && row.leaseUntil < olderThanMillis
          if (((row.state === "completed" && row.createdAt < olderThanMillis) || abandoned) && rows.delete(id))
            removed++
        }
        return removed
      }),
    releaseAll: Effect.sync(() => {
      let released = 0
      for (const [id, row] of rows) if (row.state === "running" && rows.delete(id)) released++
      return released
    })
  })
})

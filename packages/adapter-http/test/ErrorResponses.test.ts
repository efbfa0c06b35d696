import { describe, expect, it } from "@effect/vitest"
import { Errors } from "@catalog-sync/core"
import { ApiErrors } from "@catalog-sync/contract"
import { Effect } from "effect"
import { api, type ApiErrorOf } from "../src/ErrorResponses.js"
import { CurrentRequest, unadmitted } from "../src/RequestId.js"

const requestId = "5b8f0c3e-2a41-4d7e-9c6b-1f3a2e4d5c6b"

describe("api", () => {
  it.effect("turns a domain error into the declared error class of its status, with the spec's body", () =>
    Effect.gen(function* () {
      const failed = yield* api(
        Effect.fail(new Errors.RecordNotFound({ resource: "products", message: "no product x in this company" }))
      ).pipe(Effect.flip, Effect.provideService(CurrentRequest, unadmitted(requestId)))
      expect(failed).toBeInstanceOf(ApiErrors.NotFound)
      expect(ApiErrors.statusOf(failed)).toBe(404)
      expect({ ...failed }).toEqual({
        request_id: requestId,
        error: { code: "not_found", message: "no product x in this company", details: { resource: "products" } }
      })
    })
  )

  it.effect("keeps each error of a union apart: a conflict stays 409, a storage fault 503 with Retry-After", () =>
    Effect.gen(function* () {
      const conflict: Errors.RevisionConflict | Errors.PersistenceError = new Errors.RevisionConflict({
        message: "at 3",
        current_revision: 3,
        expected_revision: 2
      })
      const asConflict = yield* Effect.flip(api(Effect.fail(conflict)))
      expect(asConflict).toBeInstanceOf(ApiErrors.Conflict)
      const fault: Errors.RevisionConflict | Errors.PersistenceError = new Errors.PersistenceError({
        message: "busy",
        retryable: true
      })
      const asFault = yield* Effect.flip(api(Effect.fail(fault)))
      expect(asFault).toBeInstanceOf(ApiErrors.ServiceUnavailable)
      expect(asFault.error.retry_after).toBe(1)
    }).pipe(Effect.provideService(CurrentRequest, unadmitted(requestId)))
  )
})

// What the compiler holds handlers to: the API error of a domain error is the class of its status only,
// so a handler whose use case can fail with it compiles only where its endpoint declares that status.
export const notFoundIsNotFound: ApiErrors.NotFound = null as unknown as ApiErrorOf<Errors.RecordNotFound>
// @ts-expect-error a missing record is never a conflict
export const notFoundIsNotConflict: ApiErrors.Conflict = null as unknown as ApiErrorOf<Errors.RecordNotFound>
// @ts-expect-error a revision conflict is never a 422
export const conflictIsNotUnprocessable: ApiErrors.Unprocessable =
  null as unknown as ApiErrorOf<Errors.RevisionConflict>

import { CommonFields, Idempotency, Ids } from "@catalog-sync/core"
import { Schema } from "effect"

/** Strict decoding: the same options as the core body schemas. */
export const strict = CommonFields.strict

/** `{id}` path parameter: a record uuid. */
export const PathParams = Schema.Struct({ id: Ids.Uuid }).annotations({ identifier: "PathParams" })

/** Every POST and DELETE needs an Idempotency-Key (spec 7, rule 2). */
export const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": Idempotency.IdempotencyKey.annotations({
    description: "Unique per logical write; reuse it on every retry of that write."
  })
}).annotations({ identifier: "IdempotencyHeaders" })

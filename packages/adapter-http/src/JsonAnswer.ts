import { HttpServerResponse } from "effect/http"

/**
 * A 200 answer serialised as it is, instead of through the endpoint's success schema. For bodies our
 * own code builds from records it validated when they were written: encoding them again through a
 * union of record schemas cost more than the rest of a read (docs/performance.md, "What each design choice buys"). The schema
 * stays declared on the endpoint for the OpenAPI document, and the API fuzzer checks every answer
 * against that document (`additionalProperties: false` on every record), so the two cannot drift.
 */
export const ok = <A extends object>(body: A): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.jsonUnsafe(body)

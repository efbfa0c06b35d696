/**
 * How an endpoint answers: one of three, chosen where its group registers its handler, so that the choice
 * is read on the endpoint's line.
 *
 * - `.handle(name, handler)`: the handler returns the success value, which HttpApi encodes through the
 *   endpoint's success schema. The default.
 * - `.handle(name, handler)` whose handler returns `serialised(body)`: a body built by our own code from
 *   records validated when they were written, serialised as it is (the catalog's reads and writes, the
 *   change feed). Encoding it again through a union of record schemas cost more than the rest of a read
 *   (docs/performance.md, "What each design choice buys"). The schema stays declared on the endpoint for
 *   the OpenAPI document, and the API fuzzer checks every answer against that document
 *   (`additionalProperties: false` on every record), so the two cannot drift.
 * - `.handleRaw(name, rawWrite(body, write))`: a write whose JSON body HttpApi does not decode; `body`
 *   decodes it once, with bounded work, after checking the key may make the write (Writes.ts). Its
 *   answer is either of the above. (`POST /media` is raw too: it streams its multipart body itself.)
 */
import { HttpServerResponse } from "effect/http"

/** A 200 answer serialised as it is, instead of through the endpoint's success schema (see above). */
export const serialised = <A extends object>(body: A): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.jsonUnsafe(body)

/**
 * A 200 answer whose JSON text was built by our own code (the catalog's reads splice records' stored text):
 * what `serialised` would send of the value the text stands for.
 */
export const serialisedText = (json: string): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(json, { contentType: "application/json" })

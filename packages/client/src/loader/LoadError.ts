import { Data } from "effect"
import type { ClientError } from "../Errors.js"

/** The input cannot be used at all (a missing file, a CSV header that does not map): nothing is sent. */
export class InputError extends Data.TaggedError("InputError")<{ readonly message: string }> {}

/** The load could not go on (bad options or input, a refused key, the server unreachable); a rerun resumes. */
export class LoadError extends Data.TaggedError("LoadError")<{ readonly message: string; readonly cause?: unknown }> {}

/** Errors a request may end with that stop the load (the rest fail only the records sent). */
export const isFatal = (error: ClientError): boolean =>
  error._tag === "NetworkError" ||
  error._tag === "UnexpectedResponse" ||
  (error._tag === "CatalogSyncError" && (error.status === 401 || error.status === 429 || error.status >= 500))

export const fatal = (what: string) => (error: ClientError) =>
  new LoadError({
    message: `${what}: ${error.message}${"code" in error ? ` (${error.code})` : ""}; run the same command again to continue`,
    cause: error
  })

/** The error body of a refused request, as a failure of the records it carried. */
export const refusal = (error: ClientError): { code: string; message: string; details?: unknown } => ({
  code: "code" in error ? error.code : error._tag,
  message: error.message,
  ...("details" in error && error.details !== undefined ? { details: error.details } : {})
})

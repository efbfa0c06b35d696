import { MediaErrors } from "@catalog-sync/core"

/**
 * Error codes (the SDK's error `name`) that mean the store refuses these credentials or this request:
 * processing pauses until an operator fixes the configuration. A missing bucket is one of them: no retry
 * can succeed until the operator creates it or corrects S3_BUCKET.
 */
const deniedCodes = new Set([
  "AccessDenied",
  "AllAccessDisabled",
  "AccountProblem",
  "InvalidAccessKeyId",
  "SignatureDoesNotMatch",
  "ExpiredToken",
  "InvalidToken",
  "TokenRefreshRequired",
  "NoSuchBucket",
  // No credentials anywhere in the AWS chain (environment, profile, container or instance role).
  "CredentialsProviderError"
])

const notFoundCodes = new Set(["NoSuchKey", "NotFound"])

interface SdkError {
  readonly name?: unknown
  readonly code?: unknown
  readonly $metadata?: { readonly httpStatusCode?: unknown }
}

/** The reason a failed S3 call maps to; network failures, throttling and 5xx are `unavailable`. */
export const reasonOf = (cause: unknown): MediaErrors.MediaStorageError["reason"] => {
  const error = (typeof cause === "object" && cause !== null ? cause : {}) as SdkError
  const name = typeof error.name === "string" ? error.name : ""
  const status = typeof error.$metadata?.httpStatusCode === "number" ? error.$metadata.httpStatusCode : undefined
  if (deniedCodes.has(name) || status === 401 || status === 403) return "denied"
  if (notFoundCodes.has(name) || status === 404) return "not_found"
  return "unavailable"
}

/** What went wrong, as the code and status the store sent; never the request, its headers or credentials. */
const describe = (cause: unknown) => {
  const error = (typeof cause === "object" && cause !== null ? cause : {}) as SdkError
  const name = typeof error.name === "string" && error.name !== "" ? error.name : "Error"
  const code = typeof error.code === "string" ? ` ${error.code}` : ""
  const status = typeof error.$metadata?.httpStatusCode === "number" ? ` (HTTP ${error.$metadata.httpStatusCode})` : ""
  return `${name}${code}${status}`
}

/** A failed S3 call as a `MediaStorageError`, with its reason and what was being done. */
export const storageError = (cause: unknown, what: string) =>
  new MediaErrors.MediaStorageError({ reason: reasonOf(cause), message: `${what}: ${describe(cause)}` })

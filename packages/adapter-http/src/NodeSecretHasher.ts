import { ApiKey } from "@catalog-sync/core"
import { Effect, Layer } from "effect"
import { createHash } from "node:crypto"

/**
 * SHA-256 of a presented secret with `node:crypto`, synchronously: the same hex digest as core's WebCrypto
 * default, without a thread-pool job and a promise per authenticated request.
 */
export const hash = (secret: string): Effect.Effect<string> =>
  Effect.sync(() => createHash("sha256").update(secret).digest("hex"))

export const layer: Layer.Layer<never> = Layer.succeed(ApiKey.SecretHasher, { hash })

import { Context, Effect } from "effect"

const hexOf = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")

/** SHA-256 of a text's UTF-8 bytes, hex encoded, with WebCrypto (every runtime has it). */
export const sha256Hex = (text: string): Effect.Effect<string> =>
  Effect.promise(() => globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))).pipe(
    Effect.map((digest) => hexOf(new Uint8Array(digest)))
  )

/**
 * How core hashes per request: presented key secrets and request fingerprints. The default is
 * `sha256Hex` (WebCrypto: asynchronous, a thread-pool job and a promise per call); a runtime with a
 * synchronous SHA-256 (Node's `node:crypto`) provides its own, which must return the same hex digest.
 */
export interface Sha256 {
  readonly hash: (text: string) => Effect.Effect<string>
}
/** The hash core uses per request (a reference: `sha256Hex` unless provided). */
export const Sha256 = Context.Reference<Sha256>("@catalog-sync/core/Sha256", {
  defaultValue: () => ({ hash: sha256Hex })
})

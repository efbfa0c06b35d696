/**
 * API key format and secret handling. A key reads `csk_<key id>_<secret>`: the key id is public and
 * indexes the stored key; the secret has 256 bits of entropy and only its SHA-256 hash is stored. A
 * fast hash is enough for a random secret of that size (no dictionary to guess from), and it keeps
 * authentication off the hot path's critical cost.
 */
import { Schema } from "effect"
import { CompanyId, ConnectionId } from "../Shared/Ids.js"
import { Scope } from "../Shared/Scope.js"
import { Sha256, sha256Hex } from "../Shared/Sha256.js"

const prefix = "csk"

const base64url = (bytes: Uint8Array): string => {
  let binary = ""
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

const hexOf = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")

/** A presented key split into its id and secret. */
export interface ParsedKey {
  readonly keyId: string
  readonly secret: string
}

const pattern = /^csk_([0-9a-f]{24})_([A-Za-z0-9_-]{43})$/

/** Splits a presented key into its id and secret; anything else is not a key of ours. */
export const parse = (presented: string): ParsedKey | undefined => {
  const match = pattern.exec(presented)
  return match === null ? undefined : { keyId: match[1]!, secret: match[2]! }
}

/** A new key id and secret from the platform's cryptographic random source. */
export const generate = (): ParsedKey & { readonly token: string } => {
  const keyId = hexOf(globalThis.crypto.getRandomValues(new Uint8Array(12)))
  const secret = base64url(globalThis.crypto.getRandomValues(new Uint8Array(32)))
  return { keyId, secret, token: `${prefix}_${keyId}_${secret}` }
}

/** SHA-256 of the secret, hex encoded: what is stored instead of the secret. */
export const hashSecret = sha256Hex

/** How authentication hashes a presented secret: the SHA-256 of `Sha256` (a runtime may provide a synchronous one). */
export { Sha256 as SecretHasher }

/** Compares two strings in time that depends on their length only, never on where they differ. */
export const constantTimeEqual = (a: string, b: string): boolean => {
  let diff = a.length ^ b.length
  const length = Math.max(a.length, b.length)
  for (let i = 0; i < length; i++) diff |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0)
  return diff === 0
}

/** The shortest lifetime of a key, in days. */
export const minLifetimeDays = 1
/** The longest lifetime of a key, in days. */
export const maxLifetimeDays = 365

/** A stored key, without its secret. */
export const ApiKey = Schema.Struct({
  id: Schema.String,
  company_id: CompanyId,
  connection_id: ConnectionId,
  name: Schema.String,
  scopes: Schema.Array(Scope),
  created_at: Schema.String,
  expires_at: Schema.String,
  revoked_at: Schema.NullOr(Schema.String)
}).annotate({ identifier: "ApiKey" })
export type ApiKey = typeof ApiKey.Type

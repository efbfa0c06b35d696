import { PasswordHasher } from "@catalog-sync/core"
import { Effect, Layer } from "effect"
import { randomBytes, scrypt, type ScryptOptions, timingSafeEqual } from "node:crypto"

/**
 * scrypt's cost parameters (RFC 7914): N = 2^15 (CPU and memory cost: 128 · N · r bytes = 32 MiB per
 * hash), r = 8 (block size), p = 1 (parallelism); a 16-byte random salt and a 32-byte key. A hash takes
 * tens of milliseconds on a server core.
 */
export const parameters = { N: 2 ** 15, r: 8, p: 1, saltBytes: 16, keyBytes: 32 } as const

// scrypt refuses to use more than `maxmem` (32 MiB by default), and N = 2^15 with r = 8 needs exactly that.
const maxmem = (N: number, r: number) => 128 * N * r + 1024 * 1024

const derive = (password: string, salt: Buffer, keyBytes: number, options: ScryptOptions) =>
  Effect.callback<Buffer, Error>((resume) => {
    scrypt(password.normalize("NFC"), salt, keyBytes, options, (error, key) =>
      resume(error === null ? Effect.succeed(key) : Effect.fail(error))
    )
  })

/**
 * Whether stored parameters are ones this hasher runs: N a power of two, and at most 256 MiB of memory
 * (8 times the parameters above) and 16 times their work, so that a tampered row cannot make a sign-in
 * allocate gigabytes or run for seconds.
 */
export const withinBounds = (N: number, r: number, p: number): boolean =>
  Number.isSafeInteger(N) &&
  N >= 2 &&
  (N & (N - 1)) === 0 &&
  r >= 1 &&
  p >= 1 &&
  128 * N * r <= 256 * 1024 * 1024 &&
  N * r * p <= 16 * parameters.N * parameters.r * parameters.p

const encoded = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/

/** `scrypt$N$r$p$<salt base64>$<key base64>`: the parameters travel with the hash, so they can be raised later. */
export const hash = (password: string): Effect.Effect<string> =>
  Effect.gen(function* () {
    const { N, keyBytes, p, r, saltBytes } = parameters
    const salt = randomBytes(saltBytes)
    const key = yield* derive(password, salt, keyBytes, { N, r, p, maxmem: maxmem(N, r) })
    return `scrypt$${N}$${r}$${p}$${salt.toString("base64")}$${key.toString("base64")}`
  }).pipe(Effect.orDie)

/**
 * Whether the password matches a stored hash, compared in constant time. A stored string that is not
 * one of ours, or whose parameters are out of bounds (`withinBounds`), never matches.
 */
export const verify = (password: string, stored: string): Effect.Effect<boolean> =>
  Effect.suspend(() => {
    const match = encoded.exec(stored)
    if (match === null) return Effect.succeed(false)
    const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])]
    const salt = Buffer.from(match[4]!, "base64")
    const expected = Buffer.from(match[5]!, "base64")
    if (!withinBounds(N, r, p) || expected.length < 16 || expected.length > 64) return Effect.succeed(false)
    return derive(password, salt, expected.length, { N, r, p, maxmem: maxmem(N, r) }).pipe(
      Effect.map((key) => timingSafeEqual(key, expected)),
      Effect.orElseSucceed(() => false)
    )
  })

/** The `PasswordHasher` port with node:crypto's scrypt. */
export const layer: Layer.Layer<PasswordHasher.PasswordHasher> = Layer.succeed(PasswordHasher.PasswordHasher, {
  hash,
  verify
})

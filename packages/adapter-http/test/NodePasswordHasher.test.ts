import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { scryptSync } from "node:crypto"
import { hash, parameters, verify, withinBounds } from "../src/NodePasswordHasher.js"

describe("NodePasswordHasher", () => {
  it.effect("hashes with scrypt N=2^15 r=8 p=1, a 16-byte salt and a 32-byte key, each time salted anew", () =>
    Effect.gen(function* () {
      const stored = yield* hash("correct horse battery")
      const [name, N, r, p, salt, key] = stored.split("$")
      expect([name, N, r, p]).toEqual(["scrypt", "32768", "8", "1"])
      expect(Buffer.from(salt!, "base64")).toHaveLength(parameters.saltBytes)
      expect(Buffer.from(key!, "base64")).toHaveLength(parameters.keyBytes)
      // The key is RFC 7914 scrypt of the password and the salt, as any scrypt implementation computes it.
      const expected = scryptSync("correct horse battery", Buffer.from(salt!, "base64"), 32, {
        N: 32768,
        r: 8,
        p: 1,
        maxmem: 64 * 1024 * 1024
      })
      expect(key).toBe(expected.toString("base64"))
      expect(yield* hash("correct horse battery")).not.toBe(stored)
    })
  )

  it.effect("verifies the right password only", () =>
    Effect.gen(function* () {
      const stored = yield* hash("correct horse battery")
      expect(yield* verify("correct horse battery", stored)).toBe(true)
      expect(yield* verify("correct horse batterY", stored)).toBe(false)
      expect(yield* verify("", stored)).toBe(false)
    })
  )

  it.effect("reads the parameters from the stored hash, so older parameters keep working", () =>
    Effect.gen(function* () {
      const salt = Buffer.alloc(16, 7)
      const key = scryptSync("an older password", salt, 32, { N: 1024, r: 8, p: 1 })
      const stored = `scrypt$1024$8$1$${salt.toString("base64")}$${key.toString("base64")}`
      expect(yield* verify("an older password", stored)).toBe(true)
      expect(yield* verify("another password", stored)).toBe(false)
    })
  )

  it("runs stored parameters up to 256 MiB and 16 times the work of its own, not beyond", () => {
    expect(withinBounds(2 ** 15, 8, 1)).toBe(true)
    expect(withinBounds(2 ** 17, 8, 1)).toBe(true)
    expect(withinBounds(2 ** 15, 8, 16)).toBe(true)
    expect(withinBounds(1024, 8, 1)).toBe(true)
    // 4 GiB of memory, or 2048 times the work of one hash, from a row someone changed.
    expect(withinBounds(2 ** 20, 32, 1)).toBe(false)
    expect(withinBounds(2 ** 18, 8, 16)).toBe(false)
    expect(withinBounds(2 ** 19, 8, 1)).toBe(false)
    expect(withinBounds(1000, 8, 1)).toBe(false)
    expect(withinBounds(2 ** 15, 0, 1)).toBe(false)
  })

  it.effect("never matches a hash it cannot read or whose parameters are out of bounds", () =>
    Effect.gen(function* () {
      const stored = yield* hash("correct horse battery")
      const [, , , , salt, key] = stored.split("$")
      for (const tampered of [
        "",
        "plain",
        stored.replace("scrypt", "bcrypt"),
        `scrypt$1000$8$1$${salt}$${key}`,
        `scrypt$${2 ** 24}$8$1$${salt}$${key}`,
        `scrypt$32768$64$1$${salt}$${key}`,
        `scrypt$32768$8$1$${salt}$${Buffer.alloc(8).toString("base64")}`
      ]) {
        expect(yield* verify("correct horse battery", tampered)).toBe(false)
      }
    })
  )
})

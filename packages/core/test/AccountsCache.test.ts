import { expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { Accounts } from "../src/Auth/Accounts.js"
import * as AccountsCache from "../src/Auth/AccountsCache.js"
import { CommitVersion } from "../src/Shared/CommitVersion.js"
import { InMemory } from "../src/testing.js"
import { registeredTenant } from "./support.js"

/** The in-memory accounts, counting the key lookups that reach them; a version the test moves or hides. */
const world = Effect.gen(function* () {
  const reads = { count: 0 }
  const version = { current: Option.some("1") as Option.Option<string> }
  const counting = Layer.effect(
    Accounts,
    Effect.map(Accounts, (inner) =>
      Accounts.of({
        ...inner,
        findKey: (...args) =>
          Effect.andThen(
            Effect.sync(() => void reads.count++),
            inner.findKey(...args)
          )
      })
    )
  )
  const cached = AccountsCache.layer.pipe(
    Layer.provide(counting),
    Layer.provide(Layer.succeed(CommitVersion, { current: Effect.sync(() => version.current) }))
  )
  return { reads, version, layer: cached.pipe(Layer.provideMerge(InMemory.accountsLayer)) }
})

it.effect(
  "key lookups are served from memory while the version stays, read again when it moves or is unknown; unknown keys are never kept",
  () =>
    Effect.gen(function* () {
      const { layer, reads, version } = yield* world
      yield* Effect.gen(function* () {
        const who = yield* registeredTenant(["catalog:read"])
        const accounts = yield* Accounts
        const found = yield* accounts.findKey(who.keyId)
        expect(Option.isSome(found)).toBe(true)
        yield* accounts.findKey(who.keyId)
        yield* accounts.findKey(who.keyId)
        expect(reads.count).toBe(1)
        // Another domain is another lookup (its owner is part of the answer).
        yield* accounts.findKey(who.keyId, "api.acme.example")
        expect(reads.count).toBe(2)
        version.current = Option.some("2")
        yield* accounts.findKey(who.keyId)
        expect(reads.count).toBe(3)
        version.current = Option.none()
        yield* accounts.findKey(who.keyId)
        yield* accounts.findKey(who.keyId)
        expect(reads.count).toBe(5)
        version.current = Option.some("3")
        expect(Option.isNone(yield* accounts.findKey("unknown-key"))).toBe(true)
        expect(Option.isNone(yield* accounts.findKey("unknown-key"))).toBe(true)
        expect(reads.count).toBe(7)
      }).pipe(Effect.provide(layer))
    })
)

it.effect(
  "writes through the cached accounts are seen by the next lookup even when the version source does not move (SQLite's own connection)",
  () =>
    Effect.gen(function* () {
      const { layer, reads } = yield* world
      yield* Effect.gen(function* () {
        const who = yield* registeredTenant(["catalog:read"])
        const accounts = yield* Accounts
        const before = Option.getOrThrow(yield* accounts.findKey(who.keyId))
        expect(before.connection.enabled).toBe(true)
        yield* accounts.findKey(who.keyId)
        expect(reads.count).toBe(1)
        yield* accounts.saveConnection({ ...before.connection, enabled: false })
        expect(Option.getOrThrow(yield* accounts.findKey(who.keyId)).connection.enabled).toBe(false)
        yield* accounts.revokeKey(who.keyId, "2026-06-01T00:00:00.000Z")
        expect(Option.getOrThrow(yield* accounts.findKey(who.keyId)).key.revoked_at).toBe("2026-06-01T00:00:00.000Z")
        expect(reads.count).toBe(3)
      }).pipe(Effect.provide(layer))
    })
)

import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { AuditLog } from "../src/Audit/AuditLog.js"
import { People } from "../src/People/People.js"
import { PasswordHasher } from "../src/People/PasswordHasher.js"
import { PeopleAdmin } from "../src/People/PeopleAdmin.js"
import { accountFromAddressLimit, accountLimit, addressKey, addressLimit } from "../src/People/SignInThrottle.js"
import { IdsLive } from "../src/Shared/Ids.js"
import { InMemory } from "../src/testing.js"

/**
 * Sign-ins sent at once: every one of them reads the failure counts before any has failed, so a throttle
 * that only counts would let all of them check a password. These tests hold it to its limits anyway.
 */

/** A hasher that counts its verifications and lets other fibers run while it "works", as scrypt does. */
const verifications = { count: 0 }
const hashes = { count: 0 }
const SlowHasher = Layer.succeed(PasswordHasher, {
  hash: (password) =>
    Effect.sync(() => {
      hashes.count++
      return `plain$${password}`
    }),
  verify: (password, stored) =>
    Effect.andThen(
      Effect.yieldNow,
      Effect.sync(() => {
        verifications.count++
        return stored === `plain$${password}`
      })
    )
})

type Operation = (...args: ReadonlyArray<unknown>) => Effect.Effect<unknown, unknown>

/** The in-memory People with a yield before every call: concurrent sign-ins interleave at each step. */
const InterleavedPeople = Layer.effectContext(
  Effect.gen(function* () {
    const people = yield* People
    const interleaved = Object.fromEntries(
      Object.entries(people).map(([name, operation]) => [
        name,
        (...args: ReadonlyArray<unknown>) => Effect.andThen(Effect.yieldNow, (operation as Operation)(...args))
      ])
    ) as unknown as People["Service"]
    return Context.make(People, interleaved).pipe(Context.add(AuditLog, yield* AuditLog))
  })
).pipe(Layer.provide(InMemory.peopleLayer))

const layer = () =>
  PeopleAdmin.Default.pipe(
    Layer.provide(SlowHasher),
    Layer.provide(InMemory.accountsLayer),
    Layer.provideMerge(InterleavedPeople),
    Layer.provide(IdsLive)
  )

const password = "correct horse battery"

const signUp = Effect.flatMap(PeopleAdmin, (people) =>
  people.createUser({ email: "ada@example.com", name: "Ada", password, role: "admin" })
)

/** Runs `count` sign-ins at once; the tags of their failures. */
const atOnce = (count: number, attempt: (i: number) => Effect.Effect<unknown, { readonly _tag: string }>) =>
  Effect.forEach(
    Array.from({ length: count }, (_, i) => i),
    (i) => Effect.match(attempt(i), { onFailure: (error) => error._tag, onSuccess: () => "SignedIn" }),
    { concurrency: "unbounded" }
  )

const tally = (tags: ReadonlyArray<string>) =>
  tags.reduce<Record<string, number>>((counts, tag) => ({ ...counts, [tag]: (counts[tag] ?? 0) + 1 }), {})

describe("sign-ins sent at once", () => {
  it.effect("check at most the account's limit of wrong passwords; the rest are throttled unchecked", () =>
    Effect.gen(function* () {
      const people = yield* PeopleAdmin
      const ada = yield* signUp
      verifications.count = 0
      const tags = yield* atOnce(3 * accountLimit, (i) =>
        people.signIn({ email: ada.email, password: `wrong password ${i}`, address: `198.51.100.${i}` })
      )
      const counts = tally(tags)
      expect(verifications.count).toBeLessThanOrEqual(accountLimit)
      expect(counts["SignInRefused"] ?? 0).toBe(verifications.count)
      expect(counts["SignInThrottled"]).toBe(3 * accountLimit - verifications.count)
      // Sent one by one, the limit holds as before: the account takes exactly its limit of failures.
      for (let i = 0; verifications.count < accountLimit; i++) {
        const address = `203.0.${113 + (i >> 8)}.${i & 255}`
        yield* Effect.flip(people.signIn({ email: ada.email, password: `wrong ${i}`, address }))
      }
      const after = yield* Effect.flip(people.signIn({ email: ada.email, password, address: "203.0.113.2" }))
      expect(after._tag).toBe("SignInThrottled")
    }).pipe(Effect.provide(layer()))
  )

  it.effect("check at most the account's limit from one address of wrong passwords from there", () =>
    Effect.gen(function* () {
      const people = yield* PeopleAdmin
      const ada = yield* signUp
      verifications.count = 0
      const tags = yield* atOnce(3 * accountFromAddressLimit, (i) =>
        people.signIn({ email: ada.email, password: `wrong password ${i}`, address: "198.51.100.1" })
      )
      expect(verifications.count).toBeLessThanOrEqual(accountFromAddressLimit)
      expect(tally(tags)["SignInThrottled"]).toBe(3 * accountFromAddressLimit - verifications.count)
    }).pipe(Effect.provide(layer()))
  )

  it.effect("check at most the address's limit of guesses across many accounts", () =>
    Effect.gen(function* () {
      const people = yield* PeopleAdmin
      verifications.count = 0
      const tags = yield* atOnce(3 * addressLimit, (i) =>
        people.signIn({ email: `guess${i}@example.com`, password, address: "192.0.2.66" })
      )
      expect(verifications.count).toBeLessThanOrEqual(addressLimit)
      expect(tally(tags)["SignInThrottled"]).toBe(3 * addressLimit - verifications.count)
    }).pipe(Effect.provide(layer()))
  )

  it.effect("a successful sign-in does not count against its address", () =>
    Effect.gen(function* () {
      const people = yield* PeopleAdmin
      const ada = yield* signUp
      for (let i = 0; i < addressLimit + 5; i++) {
        const signedIn = yield* people.signIn({ email: ada.email, password, address: "192.0.2.7" })
        expect(signedIn.user.id).toBe(ada.id)
      }
      const failures = yield* Effect.flatMap(People, (port) => port.countFailures("address:192.0.2.7", 0))
      expect(failures.count).toBe(0)
    }).pipe(Effect.provide(layer()))
  )
})

describe("the cost of a sign-in", () => {
  it.effect("the first sign-in of a known email hashes as the first of an unknown one does", () =>
    Effect.gen(function* () {
      const people = yield* PeopleAdmin
      const ada = yield* signUp
      hashes.count = 0
      yield* Effect.flip(people.signIn({ email: ada.email, password: "wrong password", address: null }))
      const known = hashes.count
      yield* Effect.flip(people.signIn({ email: "nobody@example.com", password: "wrong password", address: null }))
      // The hash an unknown email is checked against is made once, by the first sign-in of either kind.
      expect(known).toBe(1)
      expect(hashes.count).toBe(1)
    }).pipe(Effect.provide(layer()))
  )
})

describe("the address a failure counts for", () => {
  it("is an IPv4 address itself, and an IPv6 address's /64", () => {
    expect(addressKey("192.0.2.7")).toBe("address:192.0.2.7")
    expect(addressKey("2001:db8:1:2:3:4:5:6")).toBe("address:2001:db8:1:2::/64")
    expect(addressKey("2001:DB8:1:2::9")).toBe("address:2001:db8:1:2::/64")
    expect(addressKey("2001:db8::1")).toBe("address:2001:db8:0:0::/64")
    expect(addressKey("::1")).toBe("address:0:0:0:0::/64")
    expect(addressKey("2001:db8:1:3::9")).not.toBe(addressKey("2001:db8:1:2::9"))
  })

  it.effect("guesses from the addresses of one IPv6 /64 are throttled together", () =>
    Effect.gen(function* () {
      const people = yield* PeopleAdmin
      for (let i = 0; i < addressLimit; i++) {
        const address = `2001:db8:1:2::${(i + 1).toString(16)}`
        yield* Effect.flip(people.signIn({ email: `guess${i}@example.com`, password, address }))
      }
      const next = yield* Effect.flip(
        people.signIn({ email: "guess@example.com", password, address: "2001:db8:1:2:ffff:ffff:ffff:ffff" })
      )
      expect(next._tag).toBe("SignInThrottled")
      const elsewhere = yield* Effect.flip(
        people.signIn({ email: "guess@example.com", password, address: "2001:db8:1:3::1" })
      )
      expect(elsewhere._tag).toBe("SignInRefused")
    }).pipe(Effect.provide(layer()))
  )
})

import { expect, it } from "@effect/vitest"
import { Ids, PasswordHasher, People, PeopleAdmin } from "@catalog-sync/core"
import { InMemory } from "@catalog-sync/core/testing"
import { Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import { PanelPurge } from "../src/Upkeep.js"

const PlainHasher = Layer.succeed(PasswordHasher.PasswordHasher, {
  hash: (password) => Effect.succeed(`plain$${password}`),
  verify: (password, stored) => Effect.succeed(stored === `plain$${password}`)
})

const ports = PeopleAdmin.PeopleAdmin.Default.pipe(
  Layer.provide(PlainHasher),
  Layer.provide(InMemory.accountsLayer),
  Layer.provideMerge(InMemory.peopleLayer),
  Layer.provide(Ids.IdsLive)
)

const password = "correct horse battery"

it.effect("the panel's upkeep deletes ended sessions at start and every 5 minutes", () =>
  Effect.gen(function* () {
    const admin = yield* PeopleAdmin.PeopleAdmin
    const people = yield* People.People
    yield* admin.createUser({ email: "ada@example.com", name: "Ada", password, role: "admin" })
    const first = yield* admin.signIn({ email: "ada@example.com", password, address: null })
    yield* TestClock.adjust("31 minutes")
    yield* Layer.build(PanelPurge)
    yield* TestClock.adjust("1 second")
    expect(Option.isNone(yield* people.findSession(first.session.id))).toBe(true)
    const second = yield* admin.signIn({ email: "ada@example.com", password, address: null })
    yield* TestClock.adjust("30 minutes")
    expect(Option.isSome(yield* people.findSession(second.session.id))).toBe(true)
    yield* TestClock.adjust("5 minutes")
    expect(Option.isNone(yield* people.findSession(second.session.id))).toBe(true)
  }).pipe(Effect.scoped, Effect.provide(ports))
)

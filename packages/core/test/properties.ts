/**
 * Properties over fast-check arbitraries. Effect 4 no longer ships fast-check: @effect/vitest 4's `it.prop`
 * takes only Effect's own `Arbitrary` and Schemas, while the kit's arbitraries are fast-check's.
 */
import { it, type TestContext } from "@effect/vitest"
import { Arbitrary, Effect, Layer, type Schema, type Scope } from "effect"
import { TestClock, TestConsole } from "effect/testing"
import * as fc from "fast-check"

/** Options of a property: fast-check's parameters, as `it.prop` took them before @effect/vitest 4. */
export interface PropOptions<Ts> {
  readonly fastCheck?: fc.Parameters<Ts>
}

/** A property over fast-check arbitraries, checked under `it` as `it.prop` did before @effect/vitest 4. */
export const prop = <Ts extends [unknown, ...Array<unknown>]>(
  name: string,
  arbitraries: { [K in keyof Ts]: fc.Arbitrary<Ts[K]> },
  self: (values: Ts, ctx: TestContext) => boolean | void,
  options: PropOptions<Ts> = {}
) =>
  it(name, (ctx) => {
    fc.assert(
      fc.property<Ts>(...arbitraries, (...values) => self(values, ctx)),
      options.fastCheck
    )
  })

/** Fresh test services for each run of an effectful property, as `it.effect` gives each test. */
const TestServices = Layer.mergeAll(TestConsole.layer, TestClock.layer())

/** As `prop`, for a property that is an Effect: each run is scoped, with its own test services. */
export const effectProp = <Ts extends [unknown, ...Array<unknown>], E>(
  name: string,
  arbitraries: { [K in keyof Ts]: fc.Arbitrary<Ts[K]> },
  self: (values: Ts, ctx: TestContext) => Effect.Effect<boolean | void, E, Scope.Scope>,
  options: PropOptions<Ts> = {}
) =>
  it(name, (ctx) =>
    fc.assert(
      fc.asyncProperty<Ts>(...arbitraries, (...values) =>
        Effect.runPromise(Effect.scoped(self(values, ctx)).pipe(Effect.provide(TestServices)))
      ),
      options.fastCheck
    )
  )

/**
 * The values a Schema describes, as a fast-check arbitrary (what `Arbitrary.make` gave in Effect 3): each
 * is Effect's schema-derived sample for a drawn seed and size. It shrinks by seed and size only.
 */
export const fromSchema = <S extends Schema.Top>(schema: S): fc.Arbitrary<S["Type"]> => {
  const arbitrary = Arbitrary.schema(schema)
  return fc
    .tuple(fc.integer(), fc.nat({ max: 10 }))
    .map(([seed, size]) => Effect.runSync(Arbitrary.sampleEffect(arbitrary, { seed, size, count: 1 }))[0]!)
}

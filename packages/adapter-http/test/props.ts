import { it } from "@effect/vitest"
import { Effect, type Scope } from "effect"
import fc from "fast-check"

type Arbitraries<T extends ReadonlyArray<unknown>> = { readonly [K in keyof T]: fc.Arbitrary<T[K]> }

interface Options<T> {
  readonly fastCheck?: fc.Parameters<[T]>
  readonly timeout?: number
}

/**
 * A property over fast-check arbitraries under `it` (@effect/vitest 4's `it.prop` takes Effect's own
 * arbitraries and schemas only).
 */
export const prop = <const T extends ReadonlyArray<unknown>>(
  name: string,
  arbitraries: Arbitraries<T>,
  check: (values: T) => boolean | void,
  options: Options<T> = {}
) =>
  it(
    name,
    () =>
      fc.assert(
        fc.property(
          fc.tuple(...(arbitraries as ReadonlyArray<fc.Arbitrary<unknown>>)) as unknown as fc.Arbitrary<T>,
          check
        ),
        options.fastCheck
      ),
    options.timeout
  )

/** `prop` whose check is an Effect (scoped per run), as `it.effect.prop` was. */
export const effectProp = <const T extends ReadonlyArray<unknown>, E>(
  name: string,
  arbitraries: Arbitraries<T>,
  check: (values: T) => Effect.Effect<unknown, E, Scope.Scope>,
  options: Options<T> = {}
) =>
  it(
    name,
    () =>
      fc.assert(
        fc.asyncProperty(
          fc.tuple(...(arbitraries as ReadonlyArray<fc.Arbitrary<unknown>>)) as unknown as fc.Arbitrary<T>,
          (values) => Effect.runPromise(Effect.scoped(Effect.asVoid(check(values))))
        ),
        options.fastCheck
      ),
    options.timeout
  )

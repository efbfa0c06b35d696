/**
 * Properties over fast-check arbitraries. Effect 4 no longer ships fast-check: @effect/vitest 4's `it.prop`
 * takes only Effect's own `Arbitrary` and Schemas, while these tests generate with fast-check.
 */
import { it } from "@effect/vitest"
import * as fc from "fast-check"

/** A property over fast-check arbitraries, checked under `it` as `it.prop` did before @effect/vitest 4. */
export const prop = <Ts extends [unknown, ...Array<unknown>]>(
  name: string,
  arbitraries: { [K in keyof Ts]: fc.Arbitrary<Ts[K]> },
  self: (values: Ts) => boolean | void
) =>
  it(name, () => {
    fc.assert(fc.property<Ts>(...arbitraries, (...values) => self(values)))
  })

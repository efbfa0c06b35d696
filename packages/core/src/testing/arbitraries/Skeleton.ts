import * as fc from "fast-check"
import { index } from "./BodyParts.js"
import type { CatalogLimits } from "./CatalogPlan.js"

/** A plan's counts of each kind and the links between its records, drawn before the records themselves. */
export interface Skeleton {
  readonly counts: Readonly<Record<keyof CatalogLimits, number>>
  readonly parents: ReadonlyArray<number | null>
  readonly scopes: ReadonlyArray<"group" | "option">
  /** Type index of each group. */
  readonly groupTypes: ReadonlyArray<number>
  /** Group index of each option. */
  readonly optionGroups: ReadonlyArray<number>
}

export const skeleton = (limits: CatalogLimits, minimums: Partial<CatalogLimits>): fc.Arbitrary<Skeleton> => {
  const count = (kind: keyof CatalogLimits, least = 0) => {
    const min = Math.max(least, minimums[kind] ?? 0)
    return fc.integer({ min, max: Math.max(min, limits[kind]) })
  }
  return fc
    .record({
      categories: count("categories", 1),
      collections: count("collections"),
      brands: count("brands"),
      types: count("types"),
      groups: count("groups"),
      options: count("options"),
      singles: count("singles", 1),
      bundles: count("bundles")
    })
    .map((counts) => ({
      ...counts,
      groups: counts.types === 0 ? 0 : counts.groups,
      options: counts.types === 0 || counts.groups === 0 ? 0 : counts.options
    }))
    .chain((counts) =>
      fc.record({
        counts: fc.constant(counts),
        parents: fc.tuple(
          ...Array.from({ length: counts.categories }, (_, i) =>
            i === 0 ? fc.constant(null) : fc.option(index(i), { nil: null })
          )
        ),
        scopes: fc.array(fc.constantFrom<"group" | "option">("group", "option"), {
          minLength: counts.types,
          maxLength: counts.types
        }),
        groupTypes: fc.array(index(counts.types), { minLength: counts.groups, maxLength: counts.groups }),
        optionGroups: fc.array(index(counts.groups), { minLength: counts.options, maxLength: counts.options })
      })
    )
}

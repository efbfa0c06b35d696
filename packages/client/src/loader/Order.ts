/**
 * The order a load sends records in, so that every `{external_id}` Reference names a record an earlier
 * batch already applied: customization types, groups, options; categories parents first (level by level);
 * brands; collections; products, single ones before the bundles that list them. Images come before all.
 * Within one batch the server resolves references over several passes, so only batches need ordering.
 */

/** The catalog resources of an import record. */
export const resources = [
  "customization-types",
  "customization-groups",
  "customization-options",
  "categories",
  "brands",
  "collections",
  "products"
] as const
export type Resource = (typeof resources)[number]

export const isResource = (value: unknown): value is Resource =>
  typeof value === "string" && (resources as ReadonlyArray<string>).includes(value)

/** One step of the load: the records of one resource at one level (category depth; products: 0 single, 1 bundle). */
export interface Tier {
  readonly resource: Resource
  readonly level: number
}

export const tierName = (tier: Tier): string => (tier.level === 0 ? tier.resource : `${tier.resource}#${tier.level}`)

/** A product is a bundle when it says so or lists components (a bundle can only list single products). */
export const isBundle = (body: Readonly<Record<string, unknown>>): boolean =>
  body.kind === "bundle" || (Array.isArray(body.components) && body.components.length > 0)

/** The `{external_id}` a Reference names, if it is in that form. */
export const referencedExternalId = (reference: unknown): string | undefined => {
  if (typeof reference !== "object" || reference === null) return undefined
  const id = (reference as { external_id?: unknown }).external_id
  return typeof id === "string" ? id : undefined
}

/** Categories deeper than this are sent at this level (the server refuses trees deeper than 100). */
const maxLevel = 100

/**
 * The level of every category: 0 when it has no parent in the load (none, a uuid, or an external id the
 * load does not hold), else its parent's level + 1. A cycle is cut where it is found (the server refuses
 * it with `category_cycle` anyway).
 */
export const categoryLevels = (parents: ReadonlyMap<string, string | undefined>): Map<string, number> => {
  const levels = new Map<string, number>()
  for (const start of parents.keys()) {
    if (levels.has(start)) continue
    // Walk up to a category whose level is known (or a root), then assign levels on the way back down.
    const path: Array<string> = []
    const onPath = new Set<string>()
    let current: string | undefined = start
    let base = -1
    while (current !== undefined) {
      const known = levels.get(current)
      if (known !== undefined) {
        base = known
        break
      }
      if (onPath.has(current) || !parents.has(current)) break
      path.push(current)
      onPath.add(current)
      current = parents.get(current)
    }
    for (let i = path.length - 1; i >= 0; i--) {
      base = Math.min(maxLevel, base + 1)
      levels.set(path[i]!, base)
    }
  }
  return levels
}

/** The tiers of a load in sending order, given how many levels of categories and whether bundles occur. */
export const plan = (present: ReadonlySet<Resource>, categoryDepth: number, hasBundles: boolean): Array<Tier> =>
  resources.flatMap((resource): Array<Tier> => {
    if (!present.has(resource)) return []
    if (resource === "categories")
      return Array.from({ length: Math.max(1, categoryDepth) }, (_, level) => ({ resource, level }))
    if (resource === "products" && hasBundles)
      return [
        { resource, level: 0 },
        { resource, level: 1 }
      ]
    return [{ resource, level: 0 }]
  })

/**
 * Consecutive tiers whose records fit in one batch together are sent together: the server resolves the
 * references inside one import over several passes, so a small load needs no round trip per tier.
 */
export const groupTiers = (
  tiers: ReadonlyArray<Tier>,
  total: (tier: Tier) => number,
  batchSize: number
): Array<ReadonlyArray<Tier>> => {
  const groups: Array<Array<Tier>> = []
  let sum = 0
  for (const tier of tiers) {
    const n = total(tier)
    const current = groups.at(-1)
    if (current === undefined || sum + n > batchSize) {
      groups.push([tier])
      sum = n
    } else {
      current.push(tier)
      sum += n
    }
  }
  return groups
}

import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { ImportService, Resource, Resources } from "@catalog-sync/core"
import { all as allScopes, type Scope } from "../src/Shared/Scope.js"
import { missingScopes } from "../src/internal/Catalog/Access.js"
import { fromSchema, prop } from "./properties.js"

type Body = Readonly<Record<string, unknown>>

const resource = fc.constantFrom(...Resource.resourceNames)

/** Bodies as connectors send them: valid ones of the resource's schema, and any JSON object with its keys. */
const bodyOf = (name: Resource.ResourceName): fc.Arbitrary<Body> => {
  const definition = Resources.definitions[name]
  const keys = [...definition.priceKeys, ...definition.costKeys, "name", "external_id", "mode", "fields", "unknown"]
  const loose = fc.dictionary(
    fc.constantFrom(...keys),
    fc.oneof(fc.jsonValue(), fc.constantFrom("prices", "catalog", "combined")),
    {
      maxKeys: 6
    }
  )
  const coefficients = fc.record({
    fields: fc.array(fc.record({ id: fc.uuid(), coefficient: fc.string() }), { minLength: 1, maxLength: 2 })
  })
  return fc.oneof(fromSchema(definition.body) as fc.Arbitrary<Body>, loose, coefficients)
}

// Made once per resource: `chain` asks for a resource's arbitrary at every sample, and making the
// schema's arbitrary costs far more than drawing from it.
const bodies = Object.fromEntries(Resource.resourceNames.map((name) => [name, bodyOf(name)])) as Record<
  Resource.ResourceName,
  fc.Arbitrary<Body>
>
const record = resource.chain((name) => bodies[name].map((body) => ({ resource: name, body })))
const held = fc.subarray([...allScopes]).map((scopes) => new Set<Scope>(scopes))

describe("an import's scopes read without decoding its bodies", () => {
  prop(
    "whenever they are held, the exact (decoding) check finds nothing missing",
    [fc.array(record, { minLength: 1, maxLength: 3 }), held],
    ([records, scopes]) => {
      const planned = records.map((r, index) => ({ index, ...r }))
      if (ImportService.holdsAnyScopesFor(planned, scopes)) {
        expect(missingScopes(ImportService.scopesFor(planned), scopes)).toEqual([])
      }
    },
    { fastCheck: { numRuns: 150 } }
  )

  it("a key holding every write scope needs no decode; one short of a sent part gets the exact check", () => {
    const body = { external_id: "p1", name: "P1", price: "10" }
    const planned = [{ index: 0, resource: "products" as const, body }]
    expect(ImportService.holdsAnyScopesFor(planned, new Set(allScopes))).toBe(true)
    const catalogOnly = new Set<Scope>(["catalog:write"])
    expect(ImportService.holdsAnyScopesFor(planned, catalogOnly)).toBe(false)
    expect(missingScopes(ImportService.scopesFor(planned), catalogOnly)).toEqual(["prices:write"])
  })

  it("a body that will not decode asks for its mode's scopes, which its sent keys alone would not", () => {
    // Only a price key, and an invalid one: decoded, it would need prices:write; refused, catalog:write.
    const planned = [{ index: 0, resource: "products" as const, body: { mode: "combined", price: 12 } }]
    const pricesOnly = new Set<Scope>(["prices:write"])
    expect(missingScopes(ImportService.scopesFor(planned), pricesOnly)).toEqual(["catalog:write"])
    expect(ImportService.holdsAnyScopesFor(planned, pricesOnly)).toBe(false)
  })
})

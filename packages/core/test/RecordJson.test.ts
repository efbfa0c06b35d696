import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { CatalogService } from "../src/Catalog/CatalogService.js"
import * as fc from "fast-check"
import { membersWithout } from "../src/internal/Catalog/JsonText.js"
import { recordJson, renderRecord } from "../src/Catalog/RecordView.js"
import { documentTextOf, emptyIndex, type StoredRecord, withDocumentText } from "../src/Catalog/StoredRecord.js"
import type { JsonObject } from "../src/internal/json.js"
import { definitions } from "../src/Resources/Registry.js"
import type { ResourceName } from "../src/Resources/Resource.js"
import type { CompanyId, RecordId } from "../src/Shared/Ids.js"
import type { Scope } from "../src/Shared/Scope.js"
import { prop } from "./properties.js"
import { as, category, company, get, principal, TestLayer, upsert, uuid } from "./support.js"

const id = () => uuid() as RecordId

/** A document of `resource` with every stored key (its defaults), and prices, a cost and a selection field. */
const documentOf = (resource: ResourceName, active: boolean): JsonObject => {
  const definition = definitions[resource]
  const document: Record<string, unknown> = { ...definition.defaults }
  for (const key of [...definition.priceKeys, ...definition.costKeys]) document[key] = "12.50"
  if ("fields" in document)
    document.fields = [{ id: id(), external_id: "f1", name: "Fabric", group_ids: [], coefficient: "1.2" }]
  if ("name" in document) document.name = 'Sofa "Oslo" \u00e9'
  if ("active" in document) document.active = active
  return document as JsonObject
}

const recordOf = (resource: ResourceName, active: boolean, archivedAt: string | null): StoredRecord => ({
  id: id(),
  companyId: uuid() as CompanyId,
  resource,
  revision: 3,
  data: documentOf(resource, active),
  index: { ...emptyIndex, active: resource === "products" ? active : null },
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-02T00:00:00.000Z",
  archivedAt
})

const scopeSets: ReadonlyArray<ReadonlyArray<Scope>> = [
  ["catalog:read"],
  ["catalog:read", "prices:read"],
  ["catalog:read", "costs:read"],
  ["catalog:read", "prices:read", "costs:read"]
]

describe("recordJson", () => {
  it("splices a record's stored text into exactly the text of its rendered view, for every resource, scope set and mode", () => {
    for (const resource of Object.keys(definitions) as Array<ResourceName>) {
      const definition = definitions[resource]
      for (const [active, archivedAt] of [
        [true, null],
        [false, null],
        [true, "2026-01-03T00:00:00.000Z"]
      ] as const) {
        const plain = recordOf(resource, active, archivedAt)
        const stored = withDocumentText({ ...plain }, JSON.stringify(plain.data))
        for (const scopes of scopeSets) {
          const who = principal(company({ tax_model: "exclusive" }), [...scopes])
          for (const mode of ["catalog", "prices"] as const) {
            for (const externalId of [null, "ext-1"]) {
              const expected = JSON.stringify(renderRecord(definition, plain, externalId, who, mode))
              expect([resource, scopes, mode, recordJson(definition, stored, externalId, who, mode)]).toEqual([
                resource,
                scopes,
                mode,
                expected
              ])
            }
          }
        }
      }
    }
  })

  it("splices an empty document without a stray comma", () => {
    const plain = { ...recordOf("brands", true, null), data: {} }
    const stored = withDocumentText({ ...plain }, "{}")
    const who = principal(company(), ["catalog:read", "prices:read", "costs:read"])
    const json = recordJson(definitions.brands, stored, null, who, "catalog")
    expect(json).toBe(JSON.stringify(renderRecord(definitions.brands, plain, null, who, "catalog")))
    expect(JSON.parse(json)).toEqual(renderRecord(definitions.brands, plain, null, who, "catalog"))
  })

  it("never splices the text of another record: a record made from one with a stored text renders its own document", () => {
    const plain = recordOf("products", true, null)
    const stored = withDocumentText({ ...plain }, JSON.stringify(plain.data))
    const changed: StoredRecord = { ...stored, data: { ...stored.data, name: "Renamed" } }
    expect(documentTextOf(changed)).toBeUndefined()
    const who = principal(company(), ["catalog:read", "prices:read", "costs:read"])
    expect(JSON.parse(recordJson(definitions.products, changed, null, who, "catalog")).name).toBe("Renamed")
  })
})

describe("membersWithout", () => {
  prop(
    "cuts the named members out of JSON.stringify's text of any object, as stringifying the object without them would",
    [fc.dictionary(fc.string(), fc.jsonValue()), fc.array(fc.string())],
    ([object, extra]) => {
      const keys = Object.keys(object)
      const dropped = new Set([...keys.filter((_, i) => i % 2 === 0), ...extra])
      const expected = JSON.stringify(Object.fromEntries(Object.entries(object).filter(([key]) => !dropped.has(key))))
      expect(`{${membersWithout(JSON.stringify(object), dropped)}}`).toBe(expected)
    }
  )

  it("refuses a text that is not JSON.stringify's text of an object", () => {
    for (const text of ["[]", '{"a":1,}', '{ "a":1}', '{"a"1}', '{"a":"x}', "{", '"x"'])
      expect([text, membersWithout(text, new Set(["a"]))]).toEqual([text, undefined])
  })
})

layer(TestLayer)("getJson", (it) => {
  it.effect("answers each caller the text of the view get gives it, whoever read the record before", () =>
    Effect.gen(function* () {
      const settings = company()
      const full = principal(settings)
      const cat = yield* category("c").pipe(as(full))
      const created = yield* upsert("products", {
        external_id: "p",
        mode: "combined",
        name: "Sofa",
        category_ids: [cat.id],
        price: "10",
        cost: "4"
      }).pipe(as(full))
      const id = created.record.id as RecordId
      // Each caller differs from the one before in one thing the view depends on.
      const callers = [
        full,
        principal(settings, ["catalog:read", "prices:read"], full.connectionId),
        principal({ ...settings, tax_model: "exclusive" }, ["catalog:read", "prices:read"], full.connectionId),
        full,
        principal(settings, ["catalog:read", "prices:read", "costs:read"]),
        principal(settings, ["catalog:read"], full.connectionId)
      ]
      for (const who of callers) {
        const service = yield* CatalogService
        const json = yield* service.getJson("products", id).pipe(as(who))
        expect(json).toBe(JSON.stringify(yield* get("products", id).pipe(as(who))))
      }
    })
  )
})

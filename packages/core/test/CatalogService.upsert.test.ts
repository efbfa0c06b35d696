import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { InMemory } from "../src/testing.js"
import { archive, as, category, company, get, list, principal, TestLayer, upsert, uuid } from "./support.js"

layer(TestLayer)("CatalogService upsert", (it) => {
  describe("create, update, unchanged", () => {
    it.effect("creates a product at revision 1, inactive, mapped to its external id", () =>
      Effect.gen(function* () {
        const cat = yield* category("c1")
        const created = yield* upsert("products", { external_id: "p1", name: "Sofa", category_ids: [cat.id] })
        expect(created.outcome).toBe("created")
        expect(created.record).toMatchObject({
          external_id: "p1",
          revision: 1,
          state: "inactive",
          active: false,
          kind: "single",
          name: "Sofa",
          category_ids: [cat.id]
        })
      }).pipe(as(principal()))
    )

    it.effect("updates with the current revision and refuses a stale or missing one", () =>
      Effect.gen(function* () {
        const cat = yield* category("c1")
        yield* upsert("products", { external_id: "p1", name: "Sofa", category_ids: [cat.id] })
        const updated = yield* upsert("products", { external_id: "p1", expected_revision: 1, name: "Sofa XL" })
        expect(updated).toMatchObject({ outcome: "updated", record: { revision: 2, name: "Sofa XL" } })
        const stale = yield* Effect.flip(upsert("products", { external_id: "p1", expected_revision: 1, name: "Old" }))
        expect(stale).toMatchObject({
          _tag: "RevisionConflict",
          code: "revision_conflict",
          current_revision: 2,
          expected_revision: 1
        })
        const missing = yield* Effect.flip(upsert("products", { external_id: "p1", name: "No revision" }))
        expect(missing).toMatchObject({ _tag: "RevisionConflict", current_revision: 2, expected_revision: null })
        const read = yield* get("products", updated.record.id as string)
        expect(read).toMatchObject({ revision: 2, name: "Sofa XL" })
      }).pipe(as(principal()))
    )

    it.effect("a write that changes nothing is unchanged, keeps the revision and logs no change", () =>
      Effect.gen(function* () {
        const inspect = yield* InMemory.Inspect
        const cat = yield* category("c1")
        const body = {
          external_id: "p1",
          name: "Sofa",
          category_ids: [cat.id],
          price: "10.5",
          details: { width: "80.0" }
        }
        yield* upsert("products", { ...body, mode: "combined" })
        const before = inspect.changes().length
        const again = yield* upsert("products", {
          ...body,
          mode: "combined",
          expected_revision: 1,
          price: "10.50",
          details: { width: "80" }
        })
        expect(again.outcome).toBe("unchanged")
        expect(again.record.revision).toBe(1)
        expect(inspect.changes().length).toBe(before)
      }).pipe(as(principal()))
    )

    it.effect("creating with expected_revision above 0 is a revision conflict at 0", () =>
      Effect.gen(function* () {
        const cat = yield* category("c1")
        const error = yield* Effect.flip(
          upsert("products", { external_id: "p9", expected_revision: 4, name: "X", category_ids: [cat.id] })
        )
        expect(error).toMatchObject({ _tag: "RevisionConflict", current_revision: 0, expected_revision: 4 })
      }).pipe(as(principal()))
    )

    it.effect("creating needs a name, and a product at least one category", () =>
      Effect.gen(function* () {
        const noName = yield* Effect.flip(upsert("categories", { external_id: "c" }))
        expect(noName).toMatchObject({ code: "missing_required_field", issues: [{ path: "$.name" }] })
        const noCategory = yield* Effect.flip(upsert("products", { external_id: "p", name: "Sofa" }))
        expect(noCategory).toMatchObject({ code: "missing_required_field", issues: [{ path: "$.category_ids" }] })
        const noType = yield* Effect.flip(upsert("customization-groups", { external_id: "g", name: "Book" }))
        expect(noType).toMatchObject({ code: "missing_required_field", issues: [{ path: "$.type_id" }] })
      }).pipe(as(principal()))
    )
  })

  describe("partial updates", () => {
    it.effect("keeps omitted fields, clears nulls, replaces sent arrays and merges details and translations", () =>
      Effect.gen(function* () {
        const [c1, c2, coll] = [
          yield* category("c1"),
          yield* category("c2"),
          (yield* upsert("collections", { external_id: "k", name: "K" })).record
        ]
        yield* upsert("products", {
          external_id: "p",
          name: "Sofa",
          sku: "S-1",
          category_ids: [c1.id, c2.id],
          collection_id: coll.id,
          details: { description: "Deep", width: "200", height: "80" },
          translations: { de: { name: "Sofa DE" }, fr: { name: "Canapé", description: "Profond" } }
        })
        const updated = yield* upsert("products", {
          external_id: "p",
          expected_revision: 1,
          category_ids: [c2.id],
          collection_id: null,
          details: { height: null },
          translations: { fr: { name: "Canapé XL" } }
        })
        expect(updated.record).toMatchObject({
          name: "Sofa",
          sku: "S-1",
          category_ids: [c2.id],
          collection_id: null,
          details: { description: "Deep", width: "200", height: null },
          translations: { de: { name: "Sofa DE" }, fr: { name: "Canapé XL", description: "Profond" } }
        })
      }).pipe(as(principal()))
    )

    it.effect("assigns selection field ids, keeps them by external id, and an empty list removes all fields", () =>
      Effect.gen(function* () {
        const cat = yield* category("c1")
        const type = (yield* upsert("customization-types", { external_id: "fabric", name: "Fabric" })).record
        const group = (yield* upsert("customization-groups", {
          external_id: "book",
          name: "Book",
          type_id: { external_id: "fabric" }
        })).record
        const field = {
          external_id: "main",
          name: "Main fabric",
          type_id: type.id,
          group_ids: [{ external_id: "book" }]
        }
        const created = yield* upsert("products", {
          external_id: "p",
          name: "Sofa",
          category_ids: [cat.id],
          fields: [field, { ...field, external_id: "arms", name: "Arms" }]
        })
        const fields = created.record.fields as ReadonlyArray<{
          id: string
          group_ids: ReadonlyArray<string>
          coefficient: string
        }>
        expect(fields).toHaveLength(2)
        expect(fields[0]!.group_ids).toEqual([group.id])
        expect(fields[0]!.coefficient).toBe("1")
        const again = yield* upsert("products", {
          external_id: "p",
          expected_revision: 1,
          fields: [{ ...field, name: "Main" }]
        })
        const kept = again.record.fields as ReadonlyArray<{ id: string }>
        expect(kept.map((f) => f.id)).toEqual([fields[0]!.id])
        const cleared = yield* upsert("products", { external_id: "p", expected_revision: 2, fields: [] })
        expect(cleared.record.fields).toEqual([])
      }).pipe(as(principal()))
    )

    it.effect("a field sent without a coefficient keeps its stored coefficient", () =>
      Effect.gen(function* () {
        const cat = yield* category("c1")
        const type = (yield* upsert("customization-types", { external_id: "fabric", name: "Fabric" })).record
        const field = { external_id: "main", name: "Main fabric", type_id: type.id }
        yield* upsert("products", {
          external_id: "p",
          name: "Sofa",
          category_ids: [cat.id],
          fields: [{ ...field, coefficient: "0.3" }]
        })
        const again = yield* upsert("products", {
          external_id: "p",
          expected_revision: 1,
          fields: [{ ...field, name: "Main" }]
        })
        expect((again.record.fields as ReadonlyArray<{ coefficient: string }>)[0]!.coefficient).toBe("0.3")
      }).pipe(as(principal()))
    )

    it.effect("a matched field keeps omitted translations and groups; one stored field cannot be sent twice", () =>
      Effect.gen(function* () {
        const cat = yield* category("c1")
        const type = (yield* upsert("customization-types", { external_id: "fabric", name: "Fabric" })).record
        const group = (yield* upsert("customization-groups", { external_id: "book", name: "Book", type_id: type.id }))
          .record
        const created = yield* upsert("products", {
          external_id: "p",
          name: "Sofa",
          category_ids: [cat.id],
          fields: [
            {
              external_id: "main",
              name: "Main",
              type_id: type.id,
              group_ids: [group.id],
              translations: { de: { name: "Haupt" } }
            }
          ]
        })
        const id = (created.record.fields as ReadonlyArray<{ id: string }>)[0]!.id
        const renamed = yield* upsert("products", {
          external_id: "p",
          expected_revision: 1,
          fields: [{ external_id: "main", name: "Main fabric", type_id: type.id }]
        })
        expect((renamed.record.fields as ReadonlyArray<object>)[0]).toMatchObject({
          id,
          group_ids: [group.id],
          translations: { de: { name: "Haupt" } }
        })
        const twice = yield* Effect.flip(
          upsert("products", {
            external_id: "p",
            expected_revision: 2,
            fields: [
              { external_id: "main", name: "A", type_id: type.id },
              { id, name: "B", type_id: type.id }
            ]
          })
        )
        expect(twice).toMatchObject({ code: "invalid_selection_field", issues: [{ path: "$.fields[1]" }] })
      }).pipe(as(principal()))
    )

    it.effect("refuses selection fields without identity, with unknown ids or duplicates", () =>
      Effect.gen(function* () {
        const cat = yield* category("c1")
        const type = (yield* upsert("customization-types", { external_id: "fabric", name: "Fabric" })).record
        const error = yield* Effect.flip(
          upsert("products", {
            external_id: "p",
            name: "Sofa",
            category_ids: [cat.id],
            fields: [
              { name: "A", type_id: type.id },
              { id: uuid(), name: "B", type_id: type.id },
              { external_id: "x", name: "C", type_id: type.id },
              { external_id: "x", name: "D", type_id: type.id }
            ]
          })
        )
        expect(error).toMatchObject({ code: "invalid_selection_field" })
        expect((error as { issues: ReadonlyArray<{ path: string }> }).issues.map((i) => i.path)).toEqual([
          "$.fields[0]",
          "$.fields[1]",
          "$.fields[3]"
        ])
      }).pipe(as(principal()))
    )
  })

  describe("archive", () => {
    it.effect("archives with the current revision, hides the product from lists and makes it read-only", () =>
      Effect.gen(function* () {
        const cat = yield* category("c1")
        const created = yield* upsert("products", { external_id: "p", name: "Sofa", category_ids: [cat.id] })
        const id = created.record.id as string
        const stale = yield* Effect.flip(archive(id, 3))
        expect(stale).toMatchObject({ _tag: "RevisionConflict", current_revision: 1 })
        const archived = yield* archive(id, 1)
        expect(archived).toMatchObject({
          outcome: "updated",
          record: { state: "archived", revision: 2, active: false }
        })
        expect((yield* archive(id, 2)).outcome).toBe("unchanged")
        expect((yield* list("products")).records).toEqual([])
        expect(yield* get("products", id)).toMatchObject({ state: "archived" })
        const write = yield* Effect.flip(upsert("products", { external_id: "p", expected_revision: 2, name: "Back" }))
        expect(write).toMatchObject({ _tag: "RecordArchived", code: "record_archived" })
        const missing = yield* Effect.flip(archive(uuid(), 1))
        expect(missing).toMatchObject({ _tag: "RecordNotFound", code: "not_found" })
      }).pipe(as(principal()))
    )

    it.effect("logs created, updated and archived changes with the origin connection", () =>
      Effect.gen(function* () {
        const inspect = yield* InMemory.Inspect
        const who = principal()
        const cat = yield* category("c1").pipe(as(who))
        const created = yield* upsert("products", { external_id: "p", name: "Sofa", category_ids: [cat.id] }).pipe(
          as(who)
        )
        yield* upsert("products", { external_id: "p", expected_revision: 1, name: "Sofa 2" }).pipe(as(who))
        yield* archive(created.record.id as string, 2).pipe(as(who))
        const mine = inspect.changes().filter((c) => c.recordId === created.record.id)
        expect(mine.map((c) => [c.operation, c.revision, c.originConnectionId])).toEqual([
          ["created", 1, who.connectionId],
          ["updated", 2, who.connectionId],
          ["archived", 3, who.connectionId]
        ])
      })
    )
  })

  it.effect("currency must equal the company currency", () =>
    Effect.gen(function* () {
      const cat = yield* category("c1")
      const error = yield* Effect.flip(
        upsert("products", { external_id: "p", name: "Sofa", category_ids: [cat.id], currency: "USD" })
      )
      expect(error).toMatchObject({ code: "currency_mismatch", issues: [{ path: "$.currency" }] })
      const ok = yield* upsert("products", { external_id: "p", name: "Sofa", category_ids: [cat.id], currency: "EUR" })
      expect(ok.outcome).toBe("created")
    }).pipe(as(principal(company({ currency: "EUR" }))))
  )

  it.effect("translations only for enabled languages other than the main one; brand names are shared", () =>
    Effect.gen(function* () {
      const disabled = yield* Effect.flip(
        upsert("categories", { external_id: "c", name: "C", translations: { it: { name: "C" } } })
      )
      expect(disabled).toMatchObject({ code: "language_not_enabled", issues: [{ path: "$.translations.it" }] })
      const main = yield* Effect.flip(
        upsert("categories", { external_id: "c", name: "C", translations: { en: { name: "C" } } })
      )
      expect(main).toMatchObject({ code: "language_not_enabled", issues: [{ path: "$.translations.en" }] })
      const brandName = yield* Effect.flip(
        upsert("brands", { external_id: "b", name: "B", translations: { de: { name: "B" } } })
      )
      expect(brandName).toMatchObject({ code: "translation_not_allowed", issues: [{ path: "$.translations.de.name" }] })
      const brand = yield* upsert("brands", {
        external_id: "b",
        name: "B",
        translations: { de: { description: "Marke" } }
      })
      expect(brand.record.translations).toEqual({ de: { description: "Marke" } })
    }).pipe(as(principal()))
  )
})

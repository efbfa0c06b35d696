import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { as, category, company, get, list, principal, TestLayer, upsert, uuid } from "./support.js"

layer(TestLayer)("identity, references and isolation", (it) => {
  describe("target_id", () => {
    it.effect("binds a new mapping to an existing record once; an established mapping never moves", () =>
      Effect.gen(function* () {
        const settings = company()
        const first = principal(settings)
        const second = principal(settings)
        const cat = yield* category("c").pipe(as(first))
        const bound = yield* upsert("categories", {
          external_id: "erp-c",
          target_id: cat.id,
          expected_revision: 1,
          name: cat.name
        }).pipe(as(second))
        expect(bound).toMatchObject({ outcome: "unchanged", record: { id: cat.id, external_id: "erp-c", revision: 1 } })
        const renamed = yield* upsert("categories", {
          external_id: "erp-c",
          expected_revision: 1,
          name: "Renamed"
        }).pipe(as(second))
        expect(renamed.record).toMatchObject({ id: cat.id, revision: 2 })
        const other = yield* category("c2").pipe(as(first))
        const move = yield* Effect.flip(
          upsert("categories", { external_id: "erp-c", target_id: other.id, expected_revision: 1 }).pipe(as(second))
        )
        expect(move).toMatchObject({ _tag: "MappingConflict", reason: "mapping_cannot_move" })
        const twice = yield* Effect.flip(
          upsert("categories", { external_id: "erp-c2", target_id: cat.id, expected_revision: 2 }).pipe(as(second))
        )
        expect(twice).toMatchObject({ _tag: "MappingConflict", reason: "record_already_mapped" })
        const unknown = yield* Effect.flip(
          upsert("categories", { external_id: "erp-x", target_id: uuid(), name: "X" }).pipe(as(second))
        )
        expect(unknown).toMatchObject({ _tag: "RecordNotFound" })
      })
    )

    it.effect("target_id of another company's record is not found", () =>
      Effect.gen(function* () {
        const theirs = yield* category("c").pipe(as(principal()))
        const error = yield* Effect.flip(
          upsert("categories", { external_id: "c", target_id: theirs.id, expected_revision: 1 }).pipe(as(principal()))
        )
        expect(error).toMatchObject({ _tag: "RecordNotFound" })
      })
    )
  })

  describe("references", () => {
    it.effect(
      "resolve uuids in the company and external ids in the caller's connection, reporting each unresolved path",
      () =>
        Effect.gen(function* () {
          const settings = company()
          const mine = principal(settings)
          const colleague = principal(settings)
          const cat = yield* category("c").pipe(as(mine))
          yield* upsert("brands", { external_id: "b", name: "B" }).pipe(as(colleague))
          const error = yield* Effect.flip(
            upsert("products", {
              external_id: "p",
              name: "Sofa",
              category_ids: [{ external_id: "c" }, uuid()],
              brand_id: { external_id: "b" },
              media_ids: [{ external_id: "img" }]
            }).pipe(as(mine))
          )
          expect(error).toMatchObject({ code: "unresolved_reference" })
          expect((error as { issues: ReadonlyArray<{ path: string }> }).issues.map((i) => i.path)).toEqual([
            "$.category_ids[1]",
            "$.brand_id",
            "$.media_ids[0]"
          ])
          const ok = yield* upsert("products", {
            external_id: "p",
            name: "Sofa",
            category_ids: [{ external_id: "c" }, cat.id]
          }).pipe(as(mine))
          expect(ok.record.category_ids).toEqual([cat.id])
        })
    )

    it.effect("a record of another company can never be referenced, read or listed", () =>
      Effect.gen(function* () {
        const them = principal()
        const me = principal()
        const theirs = yield* category("c").pipe(as(them))
        const ref = yield* Effect.flip(
          upsert("products", { external_id: "p", name: "S", category_ids: [theirs.id] }).pipe(as(me))
        )
        expect(ref).toMatchObject({ code: "unresolved_reference" })
        const read = yield* Effect.flip(get("categories", theirs.id as string).pipe(as(me)))
        expect(read).toMatchObject({ _tag: "RecordNotFound" })
        expect((yield* list("categories").pipe(as(me))).records).toEqual([])
        const sameExternalId = yield* category("c").pipe(as(me))
        expect(sameExternalId.id).not.toBe(theirs.id)
      })
    )

    it.effect("another connection sees the record without its own external id", () =>
      Effect.gen(function* () {
        const settings = company()
        const mine = principal(settings)
        const cat = yield* category("c").pipe(as(mine))
        const seen = yield* get("categories", cat.id as string).pipe(as(principal(settings)))
        expect(seen).toMatchObject({ id: cat.id, external_id: null })
        const filtered = yield* list("categories", { externalId: "c" }).pipe(as(principal(settings)))
        expect(filtered.records).toEqual([])
        const own = yield* list("categories", { externalId: "c" }).pipe(as(mine))
        expect(own.records.map((r) => r.id)).toEqual([cat.id])
      })
    )
  })

  it.effect("the first page carries change_cursor, taken before the read; later pages do not", () =>
    Effect.gen(function* () {
      const empty = yield* list("categories")
      yield* category("c1")
      const first = yield* list("categories", { limit: 1 })
      expect(first.change_cursor).toBeDefined()
      expect(first.change_cursor).not.toBe(empty.change_cursor)
      yield* category("c2")
      const next = yield* list("categories", { limit: 1, cursor: first.records[0]!.id as never })
      expect(next).not.toHaveProperty("change_cursor")
    }).pipe(as(principal()))
  )

  it.effect("pages follow next_cursor until has_more is false", () =>
    Effect.gen(function* () {
      const created = yield* Effect.forEach(
        Array.from({ length: 7 }, (_, i) => `c${i}`),
        (id) => category(id)
      )
      const seen: Array<unknown> = []
      let cursor: string | undefined
      for (;;) {
        const page = yield* list("categories", { limit: 3, cursor: cursor as never })
        seen.push(...page.records.map((r) => r.id))
        if (!page.has_more) {
          expect(page.next_cursor).toBeNull()
          break
        }
        cursor = page.next_cursor!
      }
      expect(seen).toEqual(created.map((c) => c.id as string).sort())
    }).pipe(as(principal()))
  )

  it.effect("two concurrent creates of one external id make one record and one revision conflict", () =>
    Effect.gen(function* () {
      const body = { external_id: "same", name: "C" }
      const results = yield* Effect.all([upsert("categories", body), upsert("categories", body)], {
        concurrency: 2,
        mode: "result"
      })
      const wins = results.filter((r) => r._tag === "Success")
      const losses = results.filter((r) => r._tag === "Failure")
      expect(wins).toHaveLength(1)
      expect(losses).toHaveLength(1)
      expect(losses[0]).toMatchObject({ failure: { _tag: "RevisionConflict", current_revision: 1 } })
      expect((yield* list("categories")).records).toHaveLength(1)
    }).pipe(as(principal()))
  )
})

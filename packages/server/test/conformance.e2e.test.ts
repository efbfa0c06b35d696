/**
 * Rules a connector written from the spec alone relies on, end to end over HTTP (SQLite, and PostgreSQL
 * in the second pass): prices mode and coefficients, selection-field groups, the media form, jobs that stop
 * when access stops, the default page size, import bodies that can never cause a 500, reports filtered by
 * read scopes, GET /me, and the operator's resume of paused media jobs.
 */
import { Ids, JobAdmin, Scope } from "@catalog-sync/core"
import { NodeServices } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import sharp from "sharp"
import { parse } from "../src/cli/Commands.js"
import { MediaStorageLive, PersistenceLive } from "../src/Server.js"
import { asArray, at, record, records, str } from "./Json.js"
import { makeMediaFaults } from "./MediaFaults.js"
import { call, expectError, TestServer, TestServerWith, uploadMedia, waitJob } from "./TestServer.js"

const faults = makeMediaFaults()

const image = (seed: number) =>
  Effect.promise(
    async () =>
      new Uint8Array(
        await sharp({ create: { width: 24, height: 16, channels: 3, background: { r: seed % 256, g: 90, b: 30 } } })
          .png()
          .toBuffer()
      )
  )

/** An image whose processing waits for `open`. */
const gatedImage = (seed: number) =>
  Effect.gen(function* () {
    const bytes = yield* image(seed)
    return { bytes, open: yield* faults.gate(bytes) }
  })

/** Every scope but stock's: this company has no stock package. */
const all = Scope.all.filter((scope) => !scope.startsWith("stock:"))

const untilEnd = (url: string, token: string, id: string) => waitJob(url, token, id, ["completed", "failed", "paused"])

const importDetail = (url: string, token: string, id: string) =>
  Effect.gen(function* () {
    yield* untilEnd(url, token, id)
    return (yield* call(url, "GET", `/imports/${id}`, { token })).body
  })

layer(TestServerWith({ media: faults.layer }), { excludeTestServices: true })("spec conformance end to end", (it) => {
  describe("prices mode and coefficients (spec 2.3, 5.9)", () => {
    it.effect(
      "a prices-only key sets coefficients and prices; catalog fields it sends are preserved and named; catalog-only keys never see coefficients",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const t = yield* tenant()
          const full = yield* t.key(all)
          const pricer = yield* t.key(["prices:read", "prices:write"])
          const catalogOnly = yield* t.key(["catalog:read", "catalog:write"])
          yield* call(url, "POST", "/categories/upsert", { token: full, body: { external_id: "sofas", name: "Sofas" } })
          yield* call(url, "POST", "/customization-types/upsert", {
            token: full,
            body: { external_id: "fabric", name: "Fabric", pricing_scope: "group" }
          })
          const created = yield* call(url, "POST", "/products/upsert", {
            token: full,
            body: {
              external_id: "p1",
              name: "Sofa",
              category_ids: [{ external_id: "sofas" }],
              fields: [{ external_id: "seat", name: "Seat", type_id: { external_id: "fabric" } }]
            }
          })
          expect(created.status).toBe(200)
          const fieldId = at(created.body, "record", "fields", 0, "id")

          const priced = yield* call(url, "POST", "/products/upsert", {
            token: pricer,
            body: {
              external_id: "p1",
              mode: "prices",
              expected_revision: 1,
              name: "Renamed",
              price: "999.5",
              fields: [{ external_id: "seat", name: "x", coefficient: "0.3" }]
            }
          })
          expect(priced.status, priced.text).toBe(200)
          expect(priced.body).toMatchObject({
            outcome: "updated",
            ignored_fields: ["$.name", "$.fields[0].name"],
            record: { revision: 2, price: "999.50", fields: [{ id: fieldId, external_id: "seat", coefficient: "0.3" }] }
          })
          expect(at(priced.body, "record")).not.toHaveProperty("name")

          const priceList = yield* call(url, "GET", "/products?mode=prices", { token: pricer })
          expect(at(priceList.body, "records", 0)).toMatchObject({
            external_id: "p1",
            fields: [{ id: fieldId, coefficient: "0.3" }],
            price: "999.50"
          })

          const asCatalog = yield* call(url, "GET", `/products/${at(created.body, "record", "id")}`, {
            token: catalogOnly
          })
          expect(at(asCatalog.body, "record")).toMatchObject({ name: "Sofa", fields: [{ id: fieldId, name: "Seat" }] })
          expect(at(asCatalog.body, "record", "fields", 0)).not.toHaveProperty("coefficient")
          expectError(
            yield* call(url, "GET", "/products?mode=prices", { token: catalogOnly }),
            403,
            "insufficient_scope"
          )

          const unknownField = yield* call(url, "POST", "/products/upsert", {
            token: pricer,
            body: {
              external_id: "p1",
              mode: "prices",
              expected_revision: 2,
              fields: [{ external_id: "arms", coefficient: "2" }]
            }
          })
          expectError(unknownField, 422, "invalid_selection_field")
          expect(at(unknownField.body, "error", "details")).toEqual([
            { path: "$.fields[0]", message: expect.stringContaining("arms") }
          ])

          const imported = yield* call(url, "POST", "/imports", {
            token: pricer,
            body: {
              records: [
                {
                  resource: "products",
                  body: { external_id: "p1", mode: "prices", expected_revision: 2, sku: "S-1", price: "10" }
                }
              ]
            }
          })
          expect(imported.status, imported.text).toBe(202)
          const detail = yield* importDetail(url, pricer, str(imported.body, "job", "id"))
          expect(at(detail, "report", "records", 0)).toMatchObject({
            status: "applied",
            outcome: "updated",
            ignored_fields: ["$.records[0].body.sku"]
          })
          expect(
            at(
              (yield* call(url, "GET", `/products/${str(created.body, "record", "id")}`, { token: full })).body,
              "record"
            )
          ).toMatchObject({ name: "Sofa", sku: null, price: "10.00" })
        })
    )
  })

  it.effect(
    "a selection field links groups of its own type only, in upserts and in multi-pass imports (spec 2.5)",
    () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const token = yield* (yield* tenant()).key(all)
        const post = (path: string, body: unknown) => call(url, "POST", path, { token, body })
        yield* post("/categories/upsert", { external_id: "c", name: "C" })
        yield* post("/customization-types/upsert", { external_id: "fabric", name: "Fabric" })
        yield* post("/customization-types/upsert", { external_id: "legs", name: "Legs" })
        yield* post("/customization-groups/upsert", {
          external_id: "oak",
          name: "Oak",
          type_id: { external_id: "legs" }
        })
        const field = (groups: ReadonlyArray<unknown>) => ({
          external_id: "main",
          name: "Main fabric",
          type_id: { external_id: "fabric" },
          group_ids: groups
        })
        const refused = yield* post("/products/upsert", {
          external_id: "p",
          name: "P",
          category_ids: [{ external_id: "c" }],
          fields: [field([{ external_id: "oak" }])]
        })
        expectError(refused, 422, "invalid_selection_field")
        expect(at(refused.body, "error", "details")).toEqual([
          { path: "$.fields[0].group_ids[0]", message: expect.stringContaining("customization type") }
        ])
        // The product comes before the groups it links: the passes resolve them, then the type rule applies.
        const submitted = yield* post("/imports", {
          records: [
            {
              resource: "products",
              body: {
                external_id: "good",
                name: "G",
                category_ids: [{ external_id: "c" }],
                fields: [field([{ external_id: "linen" }])]
              }
            },
            {
              resource: "products",
              body: {
                external_id: "bad",
                name: "B",
                category_ids: [{ external_id: "c" }],
                fields: [field([{ external_id: "linen" }, { external_id: "walnut" }])]
              }
            },
            {
              resource: "customization-groups",
              body: { external_id: "linen", name: "Linen", type_id: { external_id: "fabric" } }
            },
            {
              resource: "customization-groups",
              body: { external_id: "walnut", name: "Walnut", type_id: { external_id: "legs" } }
            }
          ]
        })
        const detail = yield* importDetail(url, token, str(submitted.body, "job", "id"))
        expect(at(detail, "job")).toMatchObject({ state: "completed", counts: { created: 3, failed: 1 } })
        expect(at(detail, "report", "records", 1, "error")).toMatchObject({
          code: "invalid_selection_field",
          details: [{ path: "$.records[1].body.fields[0].group_ids[1]" }]
        })
      })
  )

  it.effect("the media form's purpose is optional and defaults to catalog (spec 2.13)", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      const token = yield* (yield* tenant()).key(all)
      const big = yield* Effect.promise(
        async () =>
          new Uint8Array(
            await sharp({ create: { width: 2000, height: 1000, channels: 3, background: "#884422" } })
              .png()
              .toBuffer()
          )
      )
      const accepted = yield* uploadMedia(url, token, { external_id: "no-purpose", name: "No purpose" }, big)
      expect(accepted.status, accepted.text).toBe(202)
      expect((yield* untilEnd(url, token, str(accepted.body, "job", "id"))).state).toBe("completed")
      const listed = yield* call(url, "GET", "/media?external_id=no-purpose", { token })
      expect(at(listed.body, "records", 0)).toMatchObject({ purpose: "catalog", width: 1500, height: 750 })
    })
  )

  describe("access stops (spec 5.4)", () => {
    it.effect(
      "queued import and media jobs of a revoked key write nothing and end failed with key_revoked; a retry with an active key of the connection runs them",
      () =>
        Effect.gen(function* () {
          const { admin, url, tenant } = yield* TestServer
          const t = yield* tenant()
          const token = yield* t.key(all)
          const second = yield* t.key(all)
          // A running image holds the company's media queue and the connection's job queue behind it.
          const held = yield* gatedImage(7)
          const running = yield* uploadMedia(url, token, { external_id: "held", name: "Held" }, held.bytes)
          const queuedMedia = yield* uploadMedia(url, token, { external_id: "behind", name: "Behind" }, yield* image(8))
          const queuedImport = yield* call(url, "POST", "/imports", {
            token,
            body: { records: [{ resource: "categories", body: { external_id: "c", name: "C" } }] }
          })
          expect([running.status, queuedMedia.status, queuedImport.status]).toEqual([202, 202, 202])
          const me = yield* call(url, "GET", "/me", { token })
          yield* admin.revokeKey(str(me.body, "principal", "key_id"))
          yield* held.open
          expect((yield* untilEnd(url, second, str(running.body, "job", "id"))).state).toBe("completed")
          const stoppedMedia = yield* untilEnd(url, second, str(queuedMedia.body, "job", "id"))
          const stoppedImport = yield* untilEnd(url, second, str(queuedImport.body, "job", "id"))
          expect(stoppedMedia).toMatchObject({ state: "failed", failure: { code: "key_revoked" } })
          expect(stoppedImport).toMatchObject({
            state: "failed",
            failure: { code: "key_revoked" },
            counts: { created: 0, pending: 1 }
          })
          expect(at((yield* call(url, "GET", "/categories", { token: second })).body, "records")).toEqual([])
          expect(
            at((yield* call(url, "GET", "/media?external_id=behind", { token: second })).body, "records", 0, "state")
          ).toBe("queued")
          for (const job of [queuedMedia, queuedImport]) {
            const retried = yield* call(url, "POST", `/jobs/${str(job.body, "job", "id")}/retry`, { token: second })
            expect(retried.status, retried.text).toBe(202)
            expect((yield* untilEnd(url, second, str(job.body, "job", "id"))).state).toBe("completed")
          }
          expect(
            at((yield* call(url, "GET", "/categories?external_id=c", { token: second })).body, "records", 0, "revision")
          ).toBe(1)
        })
    )
  })

  describe("page sizes (spec 4.1)", () => {
    it.effect("a list and the change feed answer 50 records when limit is omitted, and say there are more", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const token = yield* (yield* tenant()).key(all)
        yield* Effect.all(
          Array.from({ length: 51 }, (_, n) =>
            call(url, "POST", "/categories/upsert", { token, body: { external_id: `c${n}`, name: `C${n}` } })
          ),
          { concurrency: 4 }
        )
        const list = yield* call(url, "GET", "/categories", { token })
        expect([list.status, records(list.body).length, at(list.body, "has_more")]).toEqual([200, 50, true])
        // The feed from its start (the route), and from a cursor (the envelope's fast poll).
        for (const path of ["/changes", "/changes?cursor=c2_0"]) {
          const page = yield* call(url, "GET", path, { token })
          expect([path, page.status, records(page.body).length, at(page.body, "has_more")]).toEqual([
            path,
            200,
            50,
            true
          ])
        }
      })
    )
  })

  describe("import bodies (spec 2.12)", () => {
    it.effect(
      "every record body meets its upsert schema before any rule reads it: junk fails that record, never the request; __proto__ keys are refused",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const token = yield* (yield* tenant()).key(all)
          const sent = [
            {
              resource: "products",
              body: { external_id: "p", name: "P", category_ids: [{ external_id: "c" }], fields: [null] }
            },
            {
              resource: "products",
              body: {
                external_id: "q",
                name: "Q",
                category_ids: [{ external_id: "c" }],
                fields: [{ coefficient: 5 }, "x", 1]
              }
            },
            { resource: "products", raw: `{"external_id":"r","name":"R","__proto__":{"price":"1"}}` },
            { resource: "categories", body: { external_id: "c", name: "C" } }
          ]
          const raw = `{"records":[${sent.map((r) => `{"resource":"${r.resource}","body":${r.raw ?? JSON.stringify(r.body)}}`).join(",")}]}`
          for (const dryRun of [true, false]) {
            const reply = yield* call(url, "POST", "/imports", {
              token,
              raw: dryRun ? raw.replace(/^\{/, `{"dry_run":true,`) : raw,
              headers: { "content-type": "application/json" }
            })
            expect(reply.status, reply.text).toBe(dryRun ? 200 : 202)
            const report = dryRun
              ? at(reply.body, "report")
              : at(yield* importDetail(url, token, str(reply.body, "job", "id")), "report")
            expect(records(report, "records").map((r) => [r.status, at(r, "error", "code") ?? null])).toEqual([
              ["failed", "validation_failed"],
              ["failed", "validation_failed"],
              ["failed", "validation_failed"],
              ["applied", null]
            ])
            expect(asArray(report, "records", 0, "error", "details").map((d) => at(d, "path"))).toContain(
              "$.records[0].body.fields[0]"
            )
            expect(at(report, "records", 2, "error", "details")).toEqual([
              { path: "$.records[2].body.__proto__", message: "is not an allowed property" }
            ])
          }
          const direct = yield* call(url, "POST", "/products/upsert", {
            token,
            raw: `{"external_id":"s","name":"S","__proto__":{"x":1}}`,
            headers: { "content-type": "application/json" }
          })
          expectError(direct, 422, "validation_failed")
        })
    )

    it.effect(
      "messages about price and cost fields carry no values for a reader without prices:read or costs:read",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const t = yield* tenant()
          const writer = yield* t.key(["catalog:read", "catalog:write"])
          const reader = yield* t.key(all)
          const submitted = yield* call(url, "POST", "/imports", {
            token: writer,
            body: {
              records: [
                {
                  resource: "products",
                  body: {
                    external_id: "p",
                    name: "P",
                    mode: "combined",
                    category_ids: [{ external_id: "c" }],
                    cost: "12345.678"
                  }
                },
                {
                  resource: "customization-groups",
                  body: {
                    external_id: "g",
                    name: "G",
                    type_id: { external_id: "t" },
                    mode: "combined",
                    pricing_value: "77.777"
                  }
                }
              ]
            }
          })
          expect(submitted.status, submitted.text).toBe(202)
          const seenByWriter = yield* importDetail(url, writer, str(submitted.body, "job", "id"))
          expect(at(seenByWriter, "report", "failed")).toBe(2)
          expect(JSON.stringify(seenByWriter)).not.toMatch(/12345\.678|77\.777/)
          expect(at(seenByWriter, "report", "records", 0, "error", "details", 0)).toEqual({
            path: "$.records[0].body.cost",
            message: expect.stringContaining("costs:read")
          })
          const seenByReader = yield* call(url, "GET", `/jobs/${str(submitted.body, "job", "id")}`, { token: reader })
          expect(at(seenByReader.body, "report", "records", 0, "error", "details", 0, "message")).not.toContain(
            "costs:read"
          )
        })
    )
  })

  it.effect("GET /me shows the key's expiry, its own scopes and the effective scopes (spec 5.3, 5.6)", () =>
    Effect.gen(function* () {
      const { admin, url, tenant } = yield* TestServer
      const t = yield* tenant()
      const token = yield* t.key(["catalog:read", "prices:read"])
      yield* admin.revokeScopes(t.companyId, ["prices:read"])
      const me = yield* call(url, "GET", "/me", { token })
      expect(me.status).toBe(200)
      const principal = record(me.body, "principal")
      expect(principal).toMatchObject({ key_scopes: ["catalog:read", "prices:read"], scopes: ["catalog:read"] })
      const days = (Date.parse(str(principal, "key_expires_at")) - Date.now()) / 86_400_000
      expect(days).toBeGreaterThan(29)
      expect(days).toBeLessThanOrEqual(30)
    })
  )

  it.effect(
    "an operator lists a company's paused media jobs and resumes them with the CLI after a storage check that fails clearly while access is still refused",
    () =>
      Effect.gen(function* () {
        const { admin, config, dataDir, url, tenant } = yield* TestServer
        const t = yield* tenant()
        const token = yield* t.key(all)
        const company = yield* admin.getCompany(t.companyId)
        faults.denied.add(company.storage_slug)
        const first = yield* uploadMedia(url, token, { external_id: "a", name: "A" }, yield* image(21))
        expect((yield* untilEnd(url, token, str(first.body, "job", "id"))).state).toBe("paused")
        const cli = (line: string, mediaDir?: string) =>
          parse(line.split(" ")).pipe(
            Effect.provide(NodeServices.layer),
            Effect.flatMap((action) =>
              action._tag === "Jobs" ? action.run : Effect.die(`not a jobs command: ${line}`)
            ),
            Effect.provide(
              JobAdmin.JobAdmin.Default.pipe(
                Layer.provide(
                  MediaStorageLive(mediaDir === undefined ? config : { ...config, mediaDir: Option.some(mediaDir) })
                ),
                Layer.provide(PersistenceLive(config)),
                Layer.provide(Ids.IdsLive)
              )
            )
          )
        const paused = (yield* cli(`jobs paused --company ${t.companyId}`)) as ReadonlyArray<{
          id: string
          connection_id: string
        }>
        expect(paused.map((job) => job.id)).toEqual([str(first.body, "job", "id")])
        // A media folder the server cannot write: the check fails, names the folder, and resumes nothing.
        const notAFolder = join(dataDir, "not-a-folder")
        writeFileSync(notAFolder, "")
        const failed = yield* Effect.flip(cli(`jobs resume --company ${t.companyId}`, notAFolder))
        expect(failed).toMatchObject({ _tag: "MediaStorageError" })
        expect((failed as { message: string }).message).toContain(company.storage_slug)
        expect(
          at((yield* call(url, "GET", `/jobs/${str(first.body, "job", "id")}`, { token })).body, "job", "state")
        ).toBe("paused")
        faults.denied.delete(company.storage_slug)
        expect(yield* cli(`jobs resume --company ${t.companyId}`)).toEqual({
          company_id: t.companyId,
          resumed: [str(first.body, "job", "id")]
        })
        expect((yield* untilEnd(url, token, str(first.body, "job", "id"))).state).toBe("completed")
        expect(yield* cli("jobs paused")).toEqual([])
      })
  )
})

import { CatalogSyncClient, createClient, RevisionConflict } from "@catalog-sync/client"
import { expect, layer } from "@effect/vitest"
import { Effect, Stream } from "effect"
import sharp from "sharp"
import { TestServer, TestServerLive } from "./TestServer.js"

const scopes = ["catalog:read", "catalog:write", "prices:read", "prices:write"]
const app = { appName: "client-e2e", appVersion: "0.1.0" }

layer(TestServerLive, { excludeTestServices: true, timeout: 60_000 })("typed client against a real server", (it) => {
  it.effect("typed records and errors, paging, the change feed and read-modify-write", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      const t = yield* tenant()
      const client = yield* CatalogSyncClient.makeFetch({ baseUrl: url, apiKey: yield* t.key(scopes), ...app })
      const other = yield* CatalogSyncClient.makeFetch({
        baseUrl: url,
        apiKey: yield* t.key(scopes, { connectionId: yield* t.newConnection }),
        ...app
      })

      // GET /me's answer as the API gives it.
      const me = yield* client.me
      expect(me).toMatchObject({ request_id: expect.any(String), principal: { connection_id: t.connectionId } })

      // Typed errors, decoded from the spec's error body.
      const conflict = yield* Effect.flip(
        client.upsert("categories", { external_id: "none", expected_revision: 3, name: "X" })
      )
      expect(conflict).toBeInstanceOf(RevisionConflict)
      expect(conflict).toMatchObject({ code: "revision_conflict", current_revision: 0, status: 409 })
      const missing = yield* Effect.flip(client.get("products", "0190a5a4-7b4e-7cc2-8d7e-2b1c8f3a9d01"))
      expect(missing).toMatchObject({ _tag: "CatalogSyncError", code: "not_found", status: 404 })
      const anonymous = yield* CatalogSyncClient.makeFetch({ baseUrl: url, apiKey: "csk_nope_nope", ...app })
      expect(yield* Effect.flip(anonymous.me)).toMatchObject({ _tag: "CatalogSyncError", status: 401 })

      // Paging: 5 records over pages of 2, with the first page's change_cursor.
      for (let i = 0; i < 5; i++) yield* client.upsert("categories", { external_id: `c${i}`, name: `Category ${i}` })
      const all = yield* Stream.runCollect(client.listAll("categories", { limit: 2 }))
      expect(all.map((c) => c.external_id)).toEqual(["c0", "c1", "c2", "c3", "c4"])
      const exported = yield* other.exportAll("categories")
      expect(exported.records).toHaveLength(5)
      expect(exported.changeCursor).toMatch(/^c2_/)

      // The feed: own changes skipped, the cursor saved after every call (also the empty last one).
      yield* other.upsert("categories", { external_id: "shop-1", name: "From the shop" })
      yield* client.upsert("categories", { external_id: "c5", name: "Mine" })
      const seen: Array<string> = []
      const saved: Array<string> = []
      const last = yield* client.followChanges({
        cursor: exported.changeCursor,
        limit: 1,
        onChanges: (changes) => Effect.sync(() => seen.push(...changes.map((c) => c.origin_connection_id))),
        saveCursor: (cursor) => Effect.sync(() => void saved.push(cursor))
      })
      expect(seen).toHaveLength(1)
      expect(seen[0]).not.toBe(me.principal.connection_id)
      expect(saved.length).toBeGreaterThanOrEqual(2)
      expect(saved.at(-1)).toBe(last)

      // Read-modify-write: the merge function runs again on the fresh record after a conflict.
      const created = yield* client.upsert("products", {
        external_id: "p1",
        name: "Sofa",
        category_ids: [{ external_id: "c0" }],
        mode: "combined",
        price: "100"
      })
      let calls = 0
      const result = yield* client.readModifyWrite("products", "p1", (current) =>
        Effect.gen(function* () {
          calls++
          // A concurrent writer bumps the revision between our read and our write, once.
          if (calls === 1)
            yield* client.upsert("products", {
              external_id: "p1",
              expected_revision: created.record.revision,
              sku: "S-1"
            })
          return { sku: `${current?.sku ?? "none"}+edited` }
        })
      )
      expect(calls).toBe(2)
      expect(result.record.sku).toBe("S-1+edited")
      expect(result.record.revision).toBe(3)

      // upsertResolving: the caller's resolve decides; undefined gives up with the conflict.
      const gaveUp = yield* Effect.flip(
        client.upsertResolving("products", { external_id: "p1", expected_revision: 1, name: "Stale" }, () =>
          Effect.succeed(undefined)
        )
      )
      expect(gaveUp._tag).toBe("RevisionConflict")
    })
  )

  it.effect("uploads an image and waits for its job, then links it from a product", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      const t = yield* tenant()
      const client = yield* CatalogSyncClient.makeFetch({
        baseUrl: url,
        apiKey: yield* t.key([...scopes, "media:read", "media:write"]),
        ...app
      })
      const png = yield* Effect.promise(() =>
        sharp({ create: { width: 40, height: 30, channels: 4, background: { r: 1, g: 2, b: 3, alpha: 0.5 } } })
          .png()
          .toBuffer()
      )
      const done = yield* client.uploadMediaAndWait(
        { external_id: "img-1", name: "Sofa", purpose: "catalog" },
        new Blob([png]),
        { pollInterval: "50 millis" }
      )
      expect(done).toMatchObject({ job: { kind: "media", state: "completed" } })
      const listed = yield* client.media.list({ external_id: "img-1" })
      expect(listed.records).toHaveLength(1)
      const category = yield* client.upsert("categories", { external_id: "c", name: "C" })
      const product = yield* client.upsert("products", {
        external_id: "p",
        name: "P",
        category_ids: [category.record.id],
        media_ids: [{ external_id: "img-1" }]
      })
      expect(product.record).toMatchObject({ media_ids: [listed.records[0]!.id] })
    })
  )

  it.effect("the Promise facade rejects with the same tagged errors", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      const t = yield* tenant()
      const token = yield* t.key(scopes)
      yield* Effect.promise(async () => {
        const client = createClient({ baseUrl: url, apiKey: token, ...app })
        try {
          const { record } = await client.upsert("categories", { external_id: "sofas", name: "Sofas" })
          expect(record.revision).toBe(1)
          const error = await client
            .upsert("categories", { external_id: "sofas", expected_revision: 0, name: "Again" })
            .catch((e: unknown) => e)
          expect(error).toBeInstanceOf(RevisionConflict)
          expect(error).toMatchObject({ code: "revision_conflict", current_revision: 1 })
          const names: Array<string> = []
          for await (const category of client.listAll("categories")) names.push(category.name)
          expect(names).toEqual(["Sofas"])
          // An import whose product comes before its category, waited for until its job ends.
          const done = await client.runImportAndWait(
            {
              records: [
                {
                  resource: "products",
                  body: { external_id: "p1", name: "Sofa", category_ids: [{ external_id: "chairs" }] }
                },
                { resource: "categories", body: { external_id: "chairs", name: "Chairs" } }
              ]
            },
            { pollIntervalMillis: 50 }
          )
          expect(done).toMatchObject({ job: { state: "completed", counts: { created: 2, failed: 0 } } })
          const dryRun = await client.runImportAndWait({
            dry_run: true,
            records: [{ resource: "categories", body: { external_id: "x", name: "X" } }]
          })
          expect(dryRun).toMatchObject({ report: { dry_run: true, created: 1 } })
        } finally {
          await client.close()
        }
      })
    })
  )

  it.effect("the Promise client offers what the Effect client does: me, imports, jobs, media upload, pages, raw", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      const t = yield* tenant()
      const token = yield* t.key([...scopes, "media:read", "media:write"])
      const effectClient = yield* CatalogSyncClient.makeFetch({ baseUrl: url, apiKey: token, ...app })
      const png = yield* Effect.promise(() =>
        sharp({ create: { width: 20, height: 10, channels: 3, background: { r: 9, g: 9, b: 9 } } })
          .png()
          .toBuffer()
      )
      yield* Effect.promise(async () => {
        const client = createClient({ baseUrl: url, apiKey: token, ...app })
        try {
          // Every capability of the Effect client has its Promise twin (Effect-only: error plumbing for `raw`).
          const effectOnly = new Set(["withTaggedErrors"])
          const missing = Object.keys(effectClient).filter((name) => !effectOnly.has(name) && !(name in client))
          expect(missing).toEqual([])
          for (const group of ["imports", "jobs", "media", "inventory"] as const) {
            expect(Object.keys(client[group]).sort()).toEqual(Object.keys(effectClient[group]).sort())
          }

          expect(await client.me()).toMatchObject({
            request_id: expect.any(String),
            principal: { connection_id: t.connectionId, scopes: expect.arrayContaining(scopes) }
          })
          expect(await client.health()).toMatchObject({ status: "ok" })

          // Imports and jobs: submit, read the job, list the connection's jobs page by page.
          const submitted = await client.imports.submit({
            records: [{ resource: "categories", body: { external_id: "c1", name: "One" } }]
          })
          if (!("job" in submitted)) throw new Error("a queued import answers with its job")
          const queued = await client.imports.get(submitted.job.id)
          expect(queued.job.id).toBe(submitted.job.id)
          const accepted = await client.media.upload(
            { external_id: "img", name: "Swatch", purpose: "option" },
            new Blob([png])
          )
          let job = await client.jobs.get(accepted.job.id)
          while (job.job.state === "queued" || job.job.state === "running") {
            await new Promise((resolve) => setTimeout(resolve, 50))
            job = await client.jobs.get(accepted.job.id)
          }
          expect(job.job).toMatchObject({ kind: "media", state: "completed" })
          const jobIds: Array<string> = []
          for await (const page of client.pages((cursor) =>
            client.jobs.list({ limit: 1, ...(cursor === undefined ? {} : { cursor }) })
          )) {
            expect(page.records.length).toBeLessThanOrEqual(1)
            jobIds.push(...page.records.map((record) => record.id))
          }
          expect(jobIds.sort()).toEqual([submitted.job.id, accepted.job.id].sort())

          // The escape hatch: any endpoint of the contract, failures as the client's tagged errors.
          const media = await client.raw((api) => api.media.list({ query: { external_id: "img" } }))
          expect(media.records.map((record) => record.external_id)).toEqual(["img"])
          const missingRecord = await client
            .raw((api) => api.products.get({ params: { id: "0190a5a4-7b4e-7cc2-8d7e-2b1c8f3a9d01" } }))
            .catch((e: unknown) => e)
          expect(missingRecord).toMatchObject({ _tag: "CatalogSyncError", code: "not_found", status: 404 })
        } finally {
          await client.close()
        }
      })
    })
  )
})

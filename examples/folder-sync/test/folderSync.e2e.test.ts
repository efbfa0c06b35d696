import { createClient } from "@catalog-sync/client"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { TestServer, TestServerLive } from "../../../packages/server/test/TestServer.js"
import { FolderSync } from "../src/FolderSync.js"

const scopes = ["catalog:read", "catalog:write", "prices:read", "prices:write"]
const read = (path: string) => JSON.parse(readFileSync(path, "utf8"))
const write = (path: string, value: unknown) => writeFileSync(path, JSON.stringify(value, null, 2))

layer(TestServerLive, { excludeTestServices: true, timeout: 60_000 })("folder-sync reference connector", (it) => {
  it.scoped("exports, follows the feed, pushes local edits, suppresses echoes and merges conflicts", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      const t = yield* tenant()
      const folderKey = yield* t.key(scopes)
      const shopKey = yield* t.key(scopes, { connectionId: yield* t.newConnection })
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "folder-sync-"))),
        (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
      )
      const shop = createClient({ baseUrl: url, apiKey: shopKey, appName: "shop", appVersion: "1.0.0" })
      const sync = new FolderSync({ dir, baseUrl: url, apiKey: folderKey })
      yield* Effect.addFinalizer(() => Effect.promise(() => Promise.all([shop.close(), sync.close()])))

      yield* Effect.promise(async () => {
        // Another system (the shop) already has a category and a product.
        const sofas = (await shop.upsert("categories", { external_id: "sofas", name: "Sofas" })).record
        const sofa = (await shop.upsert("products", { external_id: "p1", name: "Sofa", category_ids: [sofas.id], mode: "combined", price: "100" })).record

        // 1. Initial export: one file per record, named by id until this connection maps it.
        expect(await sync.syncOnce()).toMatchObject({ exported: 2, pushed: 0 })
        const productFile = join(dir, "products", `${sofa.id}.json`)
        expect(read(productFile)).toEqual({ name: "Sofa", category_ids: [sofas.id], price: "100.00", active: false })
        const state = () => read(join(dir, ".sync-state.json"))
        const firstCursor = state().cursor
        expect(firstCursor).toMatch(/^c1_/)

        // 2. A local edit is pushed (mapping the record with target_id); our own change is not echoed back.
        write(productFile, { ...read(productFile), name: "Sofa XL" })
        expect(await sync.syncOnce()).toMatchObject({ pulled: 0, pushed: 1, merged: 0 })
        expect((await shop.get("products", sofa.id)).name).toBe("Sofa XL")
        expect(await sync.syncOnce()).toMatchObject({ pulled: 0, pushed: 0 })
        // The cursor moved past our own change although nothing was applied (persisted after every call).
        expect(state().cursor).not.toBe(firstCursor)

        // 3. A change made by the shop reaches the folder.
        await shop.readModifyWrite("categories", "sofas", async () => ({ name: "Sofas & couches" }))
        expect(await sync.syncOnce()).toMatchObject({ pulled: 1, pushed: 0 })
        expect(read(join(dir, "categories", `${sofas.id}.json`)).name).toBe("Sofas & couches")

        // 4. Both sides edit the product between two cycles: the fields merge, the folder wins on a clash.
        write(productFile, { ...read(productFile), sku: "SOFA-XL", price: "120" })
        await shop.readModifyWrite("products", "p1", async () => ({ mode: "combined", name: "Sofa XXL", price: "130" }))
        expect(await sync.syncOnce()).toMatchObject({ pulled: 1, pushed: 1 })
        const merged = await shop.get("products", sofa.id)
        expect({ name: merged.name, sku: merged.sku, price: merged.price }).toEqual({ name: "Sofa XXL", sku: "SOFA-XL", price: "120.00" })
        expect(read(productFile)).toMatchObject({ name: "Sofa XXL", sku: "SOFA-XL", price: "120.00" })

        // 5. A new local file becomes a new record under its file name.
        write(join(dir, "categories", "chairs.json"), { name: "Chairs" })
        expect(await sync.syncOnce()).toMatchObject({ pushed: 1 })
        const folder = createClient({ baseUrl: url, apiKey: folderKey, appName: "check", appVersion: "1" })
        expect((await folder.findByExternalId("categories", "chairs"))?.name).toBe("Chairs")
        await folder.close()
      })
    }))
})

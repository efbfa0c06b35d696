import { createClient } from "@catalog-sync/client"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { freePort } from "../../../packages/server/test/Instances.js"
import { TestServer, TestServerLive } from "../../../packages/server/test/TestServer.js"
import { FolderSync } from "../src/FolderSync.js"

const exampleDir = fileURLToPath(new URL("..", import.meta.url))
const execute = promisify(execFile)

const tempDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "folder-sync-"))),
  (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
)

/** The command as `npm run sync` builds it, into a folder of its own under build/ (inside the package, to find node_modules). */
const builtCommand = Effect.acquireRelease(
  Effect.promise(async () => {
    const outDir = join(exampleDir, "build", `e2e-${process.pid}-${Date.now()}`)
    await execute(join(exampleDir, "..", "..", "node_modules", ".bin", "tsup"), ["--silent", "--out-dir", outDir], {
      cwd: exampleDir,
      timeout: 60_000
    })
    return join(outDir, "main.js")
  }),
  (main) => Effect.sync(() => rmSync(join(main, ".."), { recursive: true, force: true }))
)

/** Runs `main.js --once <dir>`; resolves with its exit code and output (a non-zero exit is not a rejection). */
const runOnce = (main: string, dir: string, env: Record<string, string>) =>
  Effect.promise(() =>
    execute(process.execPath, [main, "--once", dir], { env: { ...process.env, ...env }, timeout: 60_000 }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({
        code: error.code ?? -1,
        stdout: error.stdout ?? "",
        stderr: error.stderr ?? ""
      })
    )
  )

const scopes = ["catalog:read", "catalog:write", "prices:read", "prices:write"]
const read = (path: string) => JSON.parse(readFileSync(path, "utf8"))
const write = (path: string, value: unknown) => writeFileSync(path, JSON.stringify(value, null, 2))

layer(TestServerLive, { excludeTestServices: true, timeout: 60_000 })("folder-sync reference connector", (it) => {
  it.effect("exports, follows the feed, pushes local edits, suppresses echoes and merges conflicts", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      const t = yield* tenant()
      const folderKey = yield* t.key(scopes)
      const shopKey = yield* t.key(scopes, { connectionId: yield* t.newConnection })
      const dir = yield* tempDir
      const shop = createClient({ baseUrl: url, apiKey: shopKey, appName: "shop", appVersion: "1.0.0" })
      const sync = new FolderSync({ dir, baseUrl: url, apiKey: folderKey })
      yield* Effect.addFinalizer(() => Effect.promise(() => Promise.all([shop.close(), sync.close()])))

      yield* Effect.promise(async () => {
        // Another system (the shop) already has a category and a product.
        const sofas = (await shop.upsert("categories", { external_id: "sofas", name: "Sofas" })).record
        const sofa = (
          await shop.upsert("products", {
            external_id: "p1",
            name: "Sofa",
            category_ids: [sofas.id],
            mode: "combined",
            price: "100"
          })
        ).record

        // 1. Initial export: one file per record, named by id until this connection maps it.
        expect(await sync.syncOnce()).toMatchObject({ exported: 2, pushed: 0 })
        const productFile = join(dir, "products", `${sofa.id}.json`)
        expect(read(productFile)).toEqual({ name: "Sofa", category_ids: [sofas.id], price: "100.00", active: false })
        const state = () => read(join(dir, ".sync-state.json"))
        const firstCursor = state().cursor
        expect(firstCursor).toMatch(/^c2_/)

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
        expect({ name: merged.name, sku: merged.sku, price: merged.price }).toEqual({
          name: "Sofa XXL",
          sku: "SOFA-XL",
          price: "120.00"
        })
        expect(read(productFile)).toMatchObject({ name: "Sofa XXL", sku: "SOFA-XL", price: "120.00" })

        // 5. A new local file becomes a new record under its file name.
        write(join(dir, "categories", "chairs.json"), { name: "Chairs" })
        expect(await sync.syncOnce()).toMatchObject({ pushed: 1 })
        const folder = createClient({ baseUrl: url, apiKey: folderKey, appName: "check", appVersion: "1" })
        expect((await folder.findByExternalId("categories", "chairs"))?.name).toBe("Chairs")
        await folder.close()
      })
    })
  )

  it.effect("reports each file it cannot push (file, field, the API's message) and goes on with the others", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      const t = yield* tenant()
      const dir = yield* tempDir
      const sync = new FolderSync({ dir, baseUrl: url, apiKey: yield* t.key(scopes) })
      yield* Effect.addFinalizer(() => Effect.promise(() => sync.close()))

      yield* Effect.promise(async () => {
        // The first cycle makes a folder per resource, for new files.
        expect(await sync.syncOnce()).toMatchObject({ exported: 0, failed: [] })
        write(join(dir, "categories", "chairs.json"), { name: "Chairs" })
        write(join(dir, "products", "a-bad-price.json"), {
          name: "Chair",
          category_ids: [{ external_id: "chairs" }],
          price: "12.345"
        })
        write(join(dir, "products", "b-unknown-category.json"), {
          name: "Stool",
          category_ids: [{ external_id: "stools" }]
        })
        writeFileSync(join(dir, "products", "c-broken.json"), '{ "name": ')
        write(join(dir, "products", "d-good.json"), {
          name: "Armchair",
          category_ids: [{ external_id: "chairs" }],
          price: "250"
        })

        const report = await sync.syncOnce()
        expect(report.pushed).toBe(2)
        expect(report.failed).toEqual([
          {
            file: "products/a-bad-price.json",
            code: "invalid_request",
            message: expect.any(String),
            fields: [{ path: "$.price", message: expect.stringMatching(/decimal|pattern|\\d/) }]
          },
          {
            file: "products/b-unknown-category.json",
            code: "unresolved_reference",
            message: expect.any(String),
            fields: [{ path: "$.category_ids[0]", message: expect.stringContaining("stools") }],
            request_id: expect.any(String)
          },
          {
            file: "products/c-broken.json",
            code: "invalid_json",
            message: expect.stringContaining("not valid JSON"),
            fields: []
          }
        ])
        // The failed files are left as written, and tried again: fixed, one goes through.
        write(join(dir, "products", "a-bad-price.json"), {
          name: "Chair",
          category_ids: [{ external_id: "chairs" }],
          price: "12.35"
        })
        const again = await sync.syncOnce()
        expect(again.pushed).toBe(1)
        expect(again.failed.map((failure) => failure.file)).toEqual([
          "products/b-unknown-category.json",
          "products/c-broken.json"
        ])
      })
    })
  )

  it.effect(
    "the command exits non-zero naming the files it could not push, and writes nothing when the server is unreachable",
    () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const t = yield* tenant()
        const key = yield* t.key(scopes)
        const main = yield* builtCommand
        const dir = yield* tempDir
        mkdirSync(join(dir, "categories"), { recursive: true })
        write(join(dir, "categories", "sofas.json"), { name: "Sofas" })
        write(join(dir, "categories", "too-long.json"), { name: "x".repeat(201) })

        const partly = yield* runOnce(main, dir, { CATALOG_SYNC_URL: url, CATALOG_SYNC_KEY: key })
        expect(partly.code).toBe(1)
        expect(JSON.parse(partly.stdout)).toMatchObject({ pushed: 1, failed: 1 })
        expect(partly.stderr).toContain("folder-sync: categories/too-long.json: $.name: ")
        expect(partly.stderr).not.toMatch(/^\s+at /m)

        const clean = yield* runOnce(main, dir, { CATALOG_SYNC_URL: url, CATALOG_SYNC_KEY: key })
        expect(clean.code).toBe(1)
        rmSync(join(dir, "categories", "too-long.json"))
        expect((yield* runOnce(main, dir, { CATALOG_SYNC_URL: url, CATALOG_SYNC_KEY: key })).code).toBe(0)

        // Nothing listens on this port: the command says so, exits 1, and leaves no folder behind.
        const closed = `http://127.0.0.1:${yield* freePort}`
        const fresh = join(dir, "never-synced")
        const unreachable = yield* runOnce(main, fresh, { CATALOG_SYNC_URL: closed, CATALOG_SYNC_KEY: key })
        expect(unreachable.code).toBe(1)
        expect(unreachable.stderr).toContain(`folder-sync: cannot reach the server at ${closed} (CATALOG_SYNC_URL)`)
        expect(unreachable.stderr).not.toMatch(/^\s+at /m)
        expect(existsSync(fresh)).toBe(false)
      }),
    { timeout: 120_000 }
  )
})

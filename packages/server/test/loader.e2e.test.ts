import { CatalogSyncClient } from "@catalog-sync/client"
import { Loader, type LoadSummary, type Progress } from "@catalog-sync/client/loader"
import { NodeFileSystem } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { execFile, spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import sharp from "sharp"
import { TestServer, TestServerWith } from "./TestServer.js"

const scopes = ["catalog:read", "catalog:write", "prices:read", "prices:write", "media:read", "media:write"]
const app = { appName: "loader-e2e", appVersion: "0.1.0" }

/** A temp folder for one test's input, state and report; removed with the scope. */
const workDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "catalog-sync-loader-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

const jsonl = (records: ReadonlyArray<unknown>) => records.map((r) => JSON.stringify(r)).join("\n") + "\n"

const load = (options: Loader.LoadOptions) =>
  Loader.load({ appName: "loader-e2e", pollInterval: "20 millis", ...options }).pipe(
    Effect.provide(NodeFileSystem.layer)
  )

/** The lines of the failure report; none when the load wrote no report. */
const reportLines = (summary: LoadSummary) =>
  (summary.reportPath === undefined ? "" : readFileSync(summary.reportPath, "utf8"))
    .split("\n")
    .filter((l) => l !== "")
    .map(
      (l) =>
        JSON.parse(l) as {
          file: string
          line: number
          resource: string
          external_id: string
          path: string | null
          code: string
          message: string
        }
    )

const byResource = (summary: LoadSummary) => Object.fromEntries(summary.resources.map((r) => [r.resource, r]))

/** The connection's view: every record of a resource, and every change of the company's feed. */
const everything = (client: CatalogSyncClient.Client) =>
  Effect.gen(function* () {
    const list = <R extends CatalogSyncClient.CatalogResource>(resource: R) =>
      Stream.runCollect(client.listAll(resource))
    const changes = yield* Stream.runCollect(
      client
        .pages((cursor) => client.changes({ limit: 100, ...(cursor === undefined ? {} : { cursor }) }))
        .pipe(
          Stream.takeUntil((page) => page.records.length === 0),
          Stream.map((p) => p.records),
          Stream.flattenIterable
        )
    )
    return { products: yield* list("products"), categories: yield* list("categories"), changes }
  })

/** A tenant's connection with `keys` keys, a client on the first, and a work folder. */
const fixture = (keys = 1) =>
  Effect.gen(function* () {
    const { url, tenant } = yield* TestServer
    const t = yield* tenant()
    const tokens: Array<string> = []
    for (let i = 0; i < keys; i++) tokens.push(yield* t.key(scopes))
    const client = yield* CatalogSyncClient.makeFetch({ baseUrl: url, apiKey: tokens[0]!, ...app })
    return { url, keys: tokens, key: tokens[0]!, client, dir: yield* workDir }
  })

/** Rate limits raised, so that the loads here take seconds (pacing still reads the headers). */
layer(TestServerWith({}, { BENCHMARK_RATE_LIMIT_MULTIPLIER: "50" }), { excludeTestServices: true, timeout: 120_000 })(
  "the bulk loader against a real server",
  (it) => {
    it.effect("loads JSONL, CSV and an image folder in order, with progress, each record once", () =>
      Effect.gen(function* () {
        const { url, keys, dir, client } = yield* fixture(2)
        mkdirSync(join(dir, "images"))
        for (const [name, color] of [
          ["sofa.png", 10],
          ["chairs.png", 200]
        ] as const) {
          yield* Effect.promise(() =>
            sharp({ create: { width: 30, height: 20, channels: 3, background: { r: color, g: 0, b: 0 } } })
              .png()
              .toFile(join(dir, "images", name))
          )
        }
        // Products before their categories and fabrics, bundles before their components: the loader orders them.
        writeFileSync(
          join(dir, "catalog.jsonl"),
          jsonl([
            {
              resource: "products",
              body: {
                external_id: "bundle",
                name: "Set",
                kind: "bundle",
                category_ids: [{ external_id: "chairs" }],
                components: [{ product_id: { external_id: "p-0" }, quantity: 2 }]
              }
            },
            ...Array.from({ length: 120 }, (_, i) => ({
              resource: "products",
              body: {
                external_id: `p-${i}`,
                name: `Chair ${i}`,
                category_ids: [{ external_id: i % 2 === 0 ? "chairs" : "armchairs" }],
                fields: [
                  {
                    external_id: "cover",
                    name: "Cover",
                    type_id: { external_id: "fabric" },
                    group_ids: [{ external_id: "book" }]
                  }
                ]
              }
            })),
            {
              resource: "customization-options",
              body: { external_id: "red", name: "Red", group_id: { external_id: "book" } }
            },
            {
              resource: "customization-groups",
              body: { external_id: "book", name: "Book", type_id: { external_id: "fabric" } }
            },
            { resource: "customization-types", body: { external_id: "fabric", name: "Fabric" } },
            { resource: "brands", body: { external_id: "acme", name: "Acme" } }
          ])
        )
        writeFileSync(
          join(dir, "categories.csv"),
          "external_id,name,parent,image,name.de\narmchairs,Armchairs,chairs,,Sessel\nchairs,Chairs,furniture,chairs.png,Stühle\nfurniture,Furniture,,,Möbel\n"
        )
        writeFileSync(
          join(dir, "products.csv"),
          'external_id;name;categories;brand;description;width;price;name.de;images\nsofa;Sofa;furniture;acme;"Soft; deep";210,5;1299,90;Sofa DE;sofa.png\n'
        )
        const snapshots: Array<Progress.Snapshot> = []
        const summary = yield* load({
          baseUrl: url,
          apiKeys: keys,
          inputs: [join(dir, "catalog.jsonl"), join(dir, "categories.csv"), join(dir, "products.csv")],
          images: { catalog: join(dir, "images") },
          statePath: join(dir, "state.jsonl"),
          reportPath: join(dir, "failures.jsonl"),
          maxPending: 4,
          progressInterval: "50 millis",
          onProgress: (s) => void snapshots.push(s)
        })
        expect(summary).toMatchObject({ failed: 0, rateLimited: 0, reportPath: undefined })
        // Nothing failed: no report file, not even an empty one.
        expect(existsSync(join(dir, "failures.jsonl"))).toBe(false)
        expect(byResource(summary)).toMatchObject({
          media: { total: 2, created: 2 },
          categories: { total: 3, created: 3 },
          products: { total: 122, created: 122, failed: 0 },
          "customization-types": { created: 1 },
          brands: { created: 1 }
        })
        const totals = snapshots.map((s) => s.resources.reduce((sum, r) => sum + r.done, 0))
        expect(totals.at(-1)).toBe(2 + 3 + 122 + 4)
        expect(totals.some((n) => n < totals.at(-1)!)).toBe(true)
        // A resource shows as started once the load sends it: images first, products after everything else.
        for (const snapshot of snapshots) {
          const of = Object.fromEntries(snapshot.resources.map((r) => [r.resource, r]))
          const finished = (names: ReadonlyArray<string>) => names.every((name) => of[name]!.done === of[name]!.total)
          if (snapshot.resources.some((r) => r.started && r.resource !== "media"))
            expect(finished(["media"])).toBe(true)
          if (of.products?.started === true)
            expect(finished(snapshot.resources.map((r) => r.resource).filter((r) => r !== "products"))).toBe(true)
        }
        expect(snapshots.at(-1)!.resources.every((r) => r.started)).toBe(true)

        const { products, categories, changes } = yield* everything(client)
        expect(products).toHaveLength(122)
        expect(products.every((p) => p.revision === 1)).toBe(true)
        const sofa = products.find((p) => p.external_id === "sofa")!
        expect(sofa).toMatchObject({
          price: "1299.90",
          details: { description: "Soft; deep", width: "210.5" },
          translations: { de: { name: "Sofa DE" } }
        })
        expect(sofa.media_ids).toHaveLength(1)
        expect(sofa.cover_id).toBe(sofa.media_ids[0])
        const chairs = categories.find((c) => c.external_id === "chairs")!
        expect(categories.find((c) => c.external_id === "armchairs")!.parent_id).toBe(chairs.id)
        expect(chairs.image_id).not.toBeNull()
        expect(products.find((p) => p.external_id === "bundle")).toMatchObject({
          kind: "bundle",
          components: [{ quantity: 2 }]
        })
        // The feed holds each catalog record once, as created.
        const catalogChanges = changes.filter((c) => c.resource !== "media")
        expect(catalogChanges).toHaveLength(122 + 3 + 4)
        expect(new Set(catalogChanges.map((c) => `${c.resource}/${c.id}`)).size).toBe(catalogChanges.length)
        expect(catalogChanges.every((c) => c.operation === "created")).toBe(true)

        // The same command again: the state says it is done, nothing is sent.
        const again = yield* load({
          baseUrl: url,
          apiKeys: keys,
          inputs: [join(dir, "catalog.jsonl")],
          statePath: join(dir, "state.jsonl"),
          reportPath: join(dir, "failures.jsonl")
        })
        expect(again.alreadyFinished).toBe(true)
      })
    )

    it.effect("--dry-run reports what would fail and writes nothing", () =>
      Effect.gen(function* () {
        const { url, key, dir, client } = yield* fixture()
        // 60 categories take two batches, so the products' references point at rolled-back batches: deferred.
        writeFileSync(
          join(dir, "data.jsonl"),
          jsonl([
            ...Array.from({ length: 60 }, (_, i) => ({
              resource: "categories",
              body: { external_id: `c-${i}`, name: `C ${i}` }
            })),
            ...Array.from({ length: 10 }, (_, i) => ({
              resource: "products",
              body: { external_id: `p-${i}`, name: `P ${i}`, category_ids: [{ external_id: `c-${i}` }] }
            })),
            {
              resource: "products",
              body: { external_id: "orphan", name: "Orphan", category_ids: [{ external_id: "missing" }] }
            },
            {
              resource: "products",
              body: { external_id: "long", name: "x".repeat(201), category_ids: [{ external_id: "c-1" }] }
            }
          ])
        )
        const summary = yield* load({
          baseUrl: url,
          apiKeys: [key],
          inputs: [join(dir, "data.jsonl")],
          dryRun: true,
          reportPath: join(dir, "dry.jsonl")
        })
        expect(summary).toMatchObject({ dryRun: true, failed: 2, deferred: 10, statePath: undefined })
        expect(byResource(summary)).toMatchObject({
          categories: { created: 60, failed: 0 },
          products: { total: 12, created: 10, failed: 2 }
        })
        expect(reportLines(summary).map((f) => [f.line, f.external_id, f.code, f.path])).toEqual([
          [71, "orphan", "unresolved_reference", "$.category_ids[0]"],
          [72, "long", "validation_failed", "$.name"]
        ])
        expect(existsSync(join(dir, "catalog-sync-load.state.jsonl"))).toBe(false)
        const { products, categories, changes } = yield* everything(client)
        expect([products.length, categories.length, changes.length]).toEqual([0, 0, 0])
      })
    )

    it.effect("reports every failed record with its line, and --retry-failed re-sends only those once fixed", () =>
      Effect.gen(function* () {
        const { url, key, dir, client } = yield* fixture()
        const file = join(dir, "products.jsonl")
        const good = Array.from({ length: 70 }, (_, i) => ({
          external_id: `p-${i}`,
          name: `P ${i}`,
          category_ids: [{ external_id: "sofas" }]
        }))
        const lines = (fixed: boolean) => [
          ...good.slice(0, 30).map((b) => JSON.stringify(b)),
          JSON.stringify({
            external_id: "typo",
            name: "Typo",
            category_ids: [{ external_id: fixed ? "sofas" : "sofaz" }]
          }),
          fixed
            ? JSON.stringify({ external_id: "broken", name: "Broken", category_ids: [{ external_id: "sofas" }] })
            : '{"external_id": "broken", "name": ',
          ...good.slice(30).map((b) => JSON.stringify(b)),
          JSON.stringify({
            external_id: "long",
            name: fixed ? "Long" : "x".repeat(201),
            category_ids: [{ external_id: "sofas" }]
          })
        ]
        writeFileSync(file, `${lines(false).join("\n")}\n`)
        writeFileSync(join(dir, "categories.jsonl"), jsonl([{ external_id: "sofas", name: "Sofas" }]))
        const options = {
          baseUrl: url,
          apiKeys: [key],
          inputs: [file, join(dir, "categories.jsonl")],
          statePath: join(dir, "state.jsonl"),
          reportPath: join(dir, "failures.jsonl")
        }
        const first = yield* load(options)
        expect(first.failed).toBe(3)
        expect(reportLines(first).map((f) => [f.file, f.line, f.external_id ?? null, f.code, f.path])).toEqual([
          [file, 31, "typo", "unresolved_reference", "$.category_ids[0]"],
          [file, 32, null, "invalid_input", "$"],
          [file, 73, "long", "validation_failed", "$.name"]
        ])
        const jobsBefore = (yield* client.jobs.list({ limit: 100 })).records.length

        writeFileSync(file, `${lines(true).join("\n")}\n`)
        const retried = yield* load({ ...options, retryFailed: true })
        expect(retried).toMatchObject({ round: 1, failed: 0 })
        expect(byResource(retried)).toMatchObject({ products: { total: 3, created: 3 } })
        // The report of the first round is gone with its failures.
        expect(retried.reportPath).toBeUndefined()
        expect(existsSync(join(dir, "failures.jsonl"))).toBe(false)
        // One more import for the three, nothing else re-sent: every product is at revision 1, once in the feed.
        expect((yield* client.jobs.list({ limit: 100 })).records.length).toBe(jobsBefore + 1)
        const { products, changes } = yield* everything(client)
        expect(products).toHaveLength(73)
        expect(products.every((p) => p.revision === 1)).toBe(true)
        expect(changes.filter((c) => c.resource === "products")).toHaveLength(73)
        const nothingLeft = yield* load({ ...options, retryFailed: true })
        expect(nothingLeft.alreadyFinished).toBe(true)
      })
    )

    it.effect(
      "keeps its state and report next to its input (a folder input: inside it, never read as input) or in stateDir",
      () =>
        Effect.gen(function* () {
          const { url, key, dir } = yield* fixture()
          const exportDir = join(dir, "export")
          mkdirSync(exportDir)
          const products = (name: string) =>
            jsonl([
              { external_id: "p-1", name: "P 1", category_ids: [{ external_id: "sofas" }] },
              { external_id: "p-2", name, category_ids: [{ external_id: "sofas" }] }
            ])
          writeFileSync(join(exportDir, "products.jsonl"), products("x".repeat(201)))
          writeFileSync(join(exportDir, "categories.jsonl"), jsonl([{ external_id: "sofas", name: "Sofas" }]))
          const base = { baseUrl: url, apiKeys: [key] }

          // A file input: its folder.
          const first = yield* load({
            ...base,
            inputs: [join(exportDir, "products.jsonl"), join(exportDir, "categories.jsonl")]
          })
          expect(first).toMatchObject({
            failed: 1,
            statePath: join(exportDir, "catalog-sync-load.state.jsonl"),
            reportPath: join(exportDir, "catalog-sync-load.failures.jsonl")
          })
          expect(existsSync(first.statePath!)).toBe(true)
          expect(reportLines(first).map((f) => f.external_id)).toEqual(["p-2"])

          // A folder input holds them too; a rerun does not read them as input (it would see a changed input).
          writeFileSync(join(exportDir, "products.jsonl"), products("P 2"))
          const retried = yield* load({ ...base, inputs: [exportDir], retryFailed: true })
          expect(retried).toMatchObject({ round: 1, failed: 0, statePath: first.statePath })
          expect(byResource(retried)).toMatchObject({ products: { total: 1, created: 1 } })

          // stateDir: a folder of their own, created if missing.
          const stateDir = join(dir, "state", "products")
          const dry = yield* load({ ...base, inputs: [exportDir], stateDir, dryRun: true })
          expect(dry.statePath).toBeUndefined()
          // Only the catalog files were read: the state file's lines would be invalid input.
          expect(dry.resources.map((r) => [r.resource, r.total])).toEqual([
            ["categories", 1],
            ["products", 2]
          ])
          expect(dry.reportPath).toBe(join(stateDir, "catalog-sync-load.dry-run.jsonl"))
          const other = yield* load({
            ...base,
            inputs: [join(exportDir, "products.jsonl")],
            stateDir,
            retryFailed: true
          }).pipe(Effect.flip)
          expect(other.message).toContain(join(stateDir, "catalog-sync-load.state.jsonl"))
        })
    )

    it.effect(
      "the command as the docs run it: progress of resources under way, state next to the input, no empty report",
      () =>
        Effect.gen(function* () {
          const { url, key, dir } = yield* fixture()
          const bin = yield* buildCommand
          // Started from a folder of its own (the clone), with its input elsewhere.
          const clone = join(dir, "clone")
          const exportDir = join(dir, "export")
          mkdirSync(clone)
          mkdirSync(exportDir)
          writeFileSync(
            join(exportDir, "categories.jsonl"),
            jsonl([
              { external_id: "living", name: "Living" },
              { external_id: "sofas", name: "Sofas", parent_id: { external_id: "living" } }
            ])
          )
          writeFileSync(
            join(exportDir, "products.jsonl"),
            jsonl(
              Array.from({ length: 200 }, (_, i) => ({
                external_id: `p-${i}`,
                name: `Product ${i}`,
                category_ids: [{ external_id: "sofas" }]
              }))
            )
          )
          const run = yield* Effect.callback<{ code: number | null; stdout: string; stderr: string }>((resume) => {
            execFile(
              process.execPath,
              [bin, "--url", url, join(exportDir, "categories.jsonl"), join(exportDir, "products.jsonl")],
              { cwd: clone, env: { ...process.env, CATALOG_SYNC_KEYS: key } },
              (error, stdout, stderr) =>
                resume(
                  Effect.succeed({
                    code: error === null ? 0 : ((error as { code?: number }).code ?? null),
                    stdout,
                    stderr
                  })
                )
            )
          })
          expect(run.code).toBe(0)
          expect(readdirSync(clone)).toEqual([])
          const statePath = join(exportDir, "catalog-sync-load.state.jsonl")
          expect(readdirSync(exportDir).sort()).toEqual([
            "catalog-sync-load.state.jsonl",
            "categories.jsonl",
            "products.jsonl"
          ])
          expect(run.stdout).toContain(`State of this load: ${statePath}`)
          expect(run.stdout).toContain("Every record was loaded; no failure report was written.")
          // Not started resources say nothing; each resource ends with one line; no unknown ETA.
          const lines = run.stderr.split("\n").filter((line) => line !== "")
          expect(lines.every((line) => /^(categories|products): /.test(line))).toBe(true)
          expect(lines.filter((line) => line.startsWith("categories: done, 2/2"))).toHaveLength(1)
          expect(lines.filter((line) => line.startsWith("products: done, 200/200: 200 created"))).toHaveLength(1)
          expect(lines.findIndex((line) => line.startsWith("products"))).toBeGreaterThan(
            lines.findIndex((line) => line.startsWith("categories: done"))
          )
          expect(lines.length).toBeLessThanOrEqual(5)
          expect(run.stderr).not.toContain("ETA ?")
        })
    )

    it.effect("a loader process killed mid-run continues where it stopped and applies nothing twice", () =>
      Effect.gen(function* () {
        const { url, key, dir, client } = yield* fixture()
        const bin = yield* buildCommand
        const count = 1000
        // A folder as input: the state file the load keeps in it is not read as input when it resumes.
        const exportDir = join(dir, "export")
        const statePath = join(exportDir, "catalog-sync-load.state.jsonl")
        mkdirSync(exportDir)
        writeFileSync(join(exportDir, "categories.jsonl"), jsonl([{ external_id: "sofas", name: "Sofas" }]))
        writeFileSync(
          join(exportDir, "products.jsonl"),
          jsonl(
            Array.from({ length: count }, (_, i) => ({
              external_id: `p-${i}`,
              name: `Product ${i}`,
              category_ids: [{ external_id: "sofas" }],
              details: { description: "d".repeat(500) }
            }))
          )
        )
        const args = [bin, "--url", url, "--json", "--max-pending", "2", exportDir]
        const env = { ...process.env, CATALOG_SYNC_KEYS: key }

        // Killed (SIGKILL, no chance to clean up) once a few batches are done and others are in flight.
        const killed = yield* Effect.callback<{ done: number; sent: number }>((resume) => {
          const child = spawn(process.execPath, args, { cwd: dir, env, stdio: "ignore" })
          const timer = setInterval(() => {
            const log = existsSync(statePath) ? readFileSync(statePath, "utf8") : ""
            const done = log.split('"e":"done"').length - 1
            if (done >= 3) {
              child.kill("SIGKILL")
              clearInterval(timer)
              resume(Effect.succeed({ done, sent: log.split('"e":"sent"').length - 1 }))
            }
          }, 10)
          child.once("exit", () => {
            clearInterval(timer)
            resume(Effect.succeed({ done: -1, sent: -1 }))
          })
          return Effect.sync(() => (clearInterval(timer), child.kill("SIGKILL")))
        })
        expect(killed.done).toBeGreaterThanOrEqual(3)
        expect(killed.done).toBeLessThan(count / 50)

        const rerun = yield* Effect.callback<{ code: number | null; stdout: string }>((resume) => {
          execFile(process.execPath, args, { cwd: dir, env }, (error, stdout) =>
            resume(Effect.succeed({ code: error === null ? 0 : ((error as { code?: number }).code ?? null), stdout }))
          )
        })
        expect(rerun.code).toBe(0)
        const summary = JSON.parse(rerun.stdout.trim().split("\n").at(-1)!) as LoadSummary
        expect(summary).toMatchObject({ failed: 0, round: 0, statePath })
        expect(byResource(summary)).toMatchObject({ products: { total: count, done: count, failed: 0 } })

        const { products, changes } = yield* everything(client)
        expect(products).toHaveLength(count)
        expect(products.every((p) => p.revision === 1)).toBe(true)
        const productChanges = changes.filter((c) => c.resource === "products")
        expect(productChanges).toHaveLength(count)
        expect(new Set(productChanges.map((c) => c.id)).size).toBe(count)
        // One job per batch: a batch whose answer the kill cut off was replayed by its Idempotency-Key.
        const jobs = yield* Stream.runCollect(
          client
            .pages((cursor) => client.jobs.list({ limit: 100, ...(cursor === undefined ? {} : { cursor }) }))
            .pipe(
              Stream.map((p) => p.records),
              Stream.flattenIterable
            )
        )
        expect(jobs.length).toBe(1 + count / 50)
        expect(jobs.every((j) => j.state === "completed" && j.run === 1)).toBe(true)
      })
    )
  }
)

const clientDir = fileURLToPath(new URL("../../client/", import.meta.url))

/** The command bundled as `npx catalog-sync-load` builds it, into a folder of its own; removed with the scope. */
const buildCommand = Effect.acquireRelease(
  Effect.callback<string>((resume) => {
    const outDir = join(clientDir, "build", `e2e-${process.pid}-${Date.now()}`)
    const tsup = join(clientDir, "..", "..", "node_modules", ".bin", "tsup")
    execFile(
      tsup,
      ["--config", "tsup.bin.config.ts"],
      { cwd: clientDir, env: { ...process.env, CATALOG_SYNC_LOAD_OUT_DIR: outDir }, timeout: 120_000 },
      (error, stdout, stderr) => {
        if (error) resume(Effect.die(new Error(`building the command failed: ${error.message}\n${stdout}${stderr}`)))
        else resume(Effect.succeed(join(outDir, "catalog-sync-load.js")))
      }
    )
  }),
  (bin) => Effect.sync(() => rmSync(join(bin, ".."), { recursive: true, force: true }))
)

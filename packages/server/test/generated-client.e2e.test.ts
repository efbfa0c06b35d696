/**
 * A client generated from the served OpenAPI document, as a connector team outside this code base makes
 * one: openapi-typescript writes the types, a small connector (generated-client/connector.ts) uses them
 * with openapi-fetch, `tsc --noEmit` must accept it, and it must work against a live server: create,
 * read by id, page with limit and cursor, follow the feed, import and poll the job, typed 404/409/422.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { TestServer, TestServerLive } from "./TestServer.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))

const run = (bin: string, args: ReadonlyArray<string>) =>
  Effect.callback<{ readonly code: number; readonly output: string }>((resume) => {
    execFile(
      join(root, "node_modules/.bin", bin),
      args,
      { cwd: root, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resume(
          Effect.succeed({
            code: error === null ? 0 : typeof error.code === "number" ? error.code : 1,
            output: `${stdout}${stderr}`
          })
        )
    )
  })

/**
 * A folder under build/ (so that node_modules resolves from it) with the served document, the generated
 * types and a copy of the connector.
 */
const workspace = Effect.acquireRelease(
  Effect.sync(() => {
    mkdirSync(join(root, "build"), { recursive: true })
    return mkdtempSync(join(root, "build", "generated-client-"))
  }),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/** What generated-client/connector.ts reports of its run; the assertions compare the rest as JSON. */
interface ConnectorReport {
  readonly categoryId: string
  readonly createdIds: ReadonlyArray<string>
  readonly readBack: unknown
  readonly pages: ReadonlyArray<ReadonlyArray<string>>
  readonly feed: unknown
  readonly feedCursor: string
  readonly job: unknown
  readonly errors: unknown
}

interface Connector {
  readonly runConnector: (options: {
    readonly baseUrl: string
    readonly token: string
    readonly runId: string
  }) => Promise<ConnectorReport>
}

layer(TestServerLive, { excludeTestServices: true, timeout: 120_000 })(
  "a client generated from the served document",
  (it) => {
    it.effect(
      "typechecks (openapi-typescript + openapi-fetch, tsc --noEmit) and syncs against a live server",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const dir = yield* workspace
          writeFileSync(
            join(dir, "openapi.json"),
            yield* Effect.promise(() => fetch(`${url}/api/v1/openapi.json`).then((r) => r.text()))
          )
          const generated = yield* run("openapi-typescript", [
            join(dir, "openapi.json"),
            "--output",
            join(dir, "openapi-types.d.ts")
          ])
          expect(generated.code, generated.output).toBe(0)
          copyFileSync(join(root, "packages/server/test/generated-client/connector.ts"), join(dir, "connector.ts"))
          writeFileSync(
            join(dir, "tsconfig.json"),
            JSON.stringify({
              extends: join(root, "tsconfig.base.json"),
              compilerOptions: {
                composite: false,
                declaration: false,
                declarationMap: false,
                emitDeclarationOnly: false,
                noEmit: true
              },
              files: ["connector.ts"]
            })
          )
          const typecheck = yield* run("tsc", ["--noEmit", "-p", join(dir, "tsconfig.json")])
          expect(typecheck.output).toBe("")
          expect(typecheck.code).toBe(0)

          const token = yield* Effect.flatMap(tenant(), (t) => t.key(["catalog:read", "catalog:write"]))
          const connector = (yield* Effect.promise(
            () => import(pathToFileURL(join(dir, "connector.ts")).href)
          )) as Connector
          const report = yield* Effect.promise(() =>
            connector.runConnector({ baseUrl: url, token, runId: `run-${Date.now()}` })
          )

          expect(report.createdIds).toHaveLength(5)
          expect(report.readBack).toEqual({
            id: report.createdIds[0],
            name: "Sofa 1",
            revision: 1,
            category_ids: [report.categoryId]
          })
          // limit=2 over 5 products: pages of 2, 2 and 1 in id order, every product once.
          expect(report.pages.map((page) => page.length)).toEqual([2, 2, 1])
          expect(report.pages.flat()).toEqual([...report.createdIds].sort())
          expect(report.feed).toEqual([
            { resource: "categories", id: report.categoryId, operation: "created" },
            ...report.createdIds.map((id) => ({ resource: "products", id, operation: "created" }))
          ])
          expect(report.feedCursor).toMatch(/^c2_/)
          // The product before its category resolves on a later pass; the unresolvable one fails alone.
          expect(report.job).toMatchObject({ state: "completed", created: 2, failed: 1 })
          expect(report.errors).toEqual({
            notFound: { status: 404, code: "not_found" },
            conflict: { status: 409, code: "revision_conflict", currentRevision: 1 },
            invalid: { status: 422, code: "validation_failed", paths: ["$.external_id", "$.name"] }
          })
        }),
      // Code generation and a TypeScript compile take seconds alone, a minute on a loaded machine.
      120_000
    )
  }
)

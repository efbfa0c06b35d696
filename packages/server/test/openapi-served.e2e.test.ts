/**
 * The OpenAPI document as the server serves it: the committed copy in docs/ is the same, Spectral and
 * Redocly find nothing to report, its request examples succeed against a live server in the order a
 * new user would try them, and its parameters say what the server enforces.
 */
import { expect, layer } from "@effect/vitest"
import { Resource, Scope } from "@catalog-sync/core"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import sharp from "sharp"
import { makeResponseContract } from "./robustness/ResponseContract.js"
import { asArray, at, detailPaths, isObject, type JsonObject, num, record, records, str } from "./Json.js"
import { call, type Reply, TestServer, TestServerLive, uploadMedia, waitJob } from "./TestServer.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const golden = join(root, "docs/openapi.json")

/** Runs a linter of node_modules/.bin from the repository root (where its ruleset file is), offline. */
const lint = (bin: string, args: ReadonlyArray<string>) =>
  Effect.callback<{ readonly stdout: string; readonly stderr: string }>((resume) => {
    execFile(
      join(root, "node_modules/.bin", bin),
      args,
      // Redocly would otherwise send usage data and look for a newer version.
      {
        cwd: root,
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
        maxBuffer: 64 * 1024 * 1024
      },
      (_, stdout, stderr) => resume(Effect.succeed({ stdout, stderr }))
    )
  })

/** The served document in a temporary file, for the command-line linters. */
const servedFile = (url: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const dir = mkdtempSync(join(tmpdir(), "catalog-sync-openapi-"))
      writeFileSync(join(dir, "openapi.json"), await fetch(`${url}/api/v1/openapi.json`).then((r) => r.text()))
      return { dir, file: join(dir, "openapi.json") }
    }),
    ({ dir }) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

/**
 * The writes whose body examples are replayed, in the order their references need. The archive example
 * addresses a product by a uuid the replay cannot know in advance (its body is checked in openapi.test.ts).
 */
const replayOrder = [
  "POST /api/v1/categories/upsert",
  "POST /api/v1/collections/upsert",
  "POST /api/v1/brands/upsert",
  "POST /api/v1/customization-types/upsert",
  "POST /api/v1/customization-groups/upsert",
  "POST /api/v1/media",
  "POST /api/v1/customization-options/upsert",
  "POST /api/v1/products/upsert",
  "POST /api/v1/inventory",
  "POST /api/v1/imports"
]
const notReplayed = ["DELETE /api/v1/products/{id}"]

/** The objects below a map of the document (`paths`, `examples`, ...) by key; none when there is no map. */
const entriesOf = (map: unknown): ReadonlyArray<readonly [string, JsonObject]> =>
  isObject(map) ? Object.entries(map).map(([key, value]) => [key, record(value)] as const) : []

const operations = (spec: unknown) =>
  entriesOf(at(spec, "paths")).flatMap(([path, item]) =>
    entriesOf(item).map(([method, operation]) => ({
      key: `${method.toUpperCase()} ${path}`,
      path,
      method,
      operation
    }))
  )

layer(TestServerLive, { excludeTestServices: true, timeout: 120_000 })("the served OpenAPI document", (it) => {
  it.effect("is the committed docs/openapi.json", () =>
    Effect.gen(function* () {
      const { url } = yield* TestServer
      const served = yield* Effect.promise(() => fetch(`${url}/api/v1/openapi.json`).then((r) => r.json()))
      expect(served).toEqual(JSON.parse(readFileSync(golden, "utf8")))
    })
  )

  it.effect(
    "lints clean: Spectral (spectral:oas, .spectral.yaml) and Redocly (recommended, redocly.yaml) report no error and no warning",
    () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const { file } = yield* servedFile(url)
        const [spectral, redocly] = yield* Effect.all(
          [
            lint("spectral", ["lint", file, "--ruleset", join(root, ".spectral.yaml"), "--format", "json", "--quiet"]),
            lint("redocly", ["lint", file, "--config", join(root, "redocly.yaml"), "--format", "json"])
          ],
          { concurrency: 2 }
        )
        const spectralResults: unknown = JSON.parse(spectral.stdout)
        expect(
          asArray(spectralResults).map(
            (r) => `${String(at(r, "code"))} ${asArray(r, "path").join(".")}: ${str(r, "message")}`
          )
        ).toEqual([])
        const redoclyReport: unknown = JSON.parse(redocly.stdout)
        expect(asArray(redoclyReport, "problems").map((p) => `${str(p, "ruleId")}: ${str(p, "message")}`)).toEqual([])
        expect(at(redoclyReport, "totals")).toEqual({ errors: 0, warnings: 0, ignored: 0 })
      }),
    { timeout: 120_000 }
  )

  it.effect("its request examples succeed, in order, against a live server", () =>
    Effect.gen(function* () {
      const { url, admin, tenant } = yield* TestServer
      const spec: unknown = JSON.parse(readFileSync(golden, "utf8"))
      const withExamples = operations(spec)
        .filter((op) => op.operation.requestBody !== undefined)
        .map((op) => op.key)
      expect([...replayOrder, ...notReplayed].sort()).toEqual([...withExamples].sort())

      // A company set up as the examples assume: EUR, English with German and French, tax rates 20 and 10, stock.
      const t = yield* tenant({
        languages: ["de", "fr"],
        tax_rates: ["20", "10"],
        tax_model: "inclusive",
        stock_package: true,
        inventory_module: true
      })
      const location = yield* admin.createLocation(t.companyId, "Main warehouse")
      yield* admin.assignLocation(t.connectionId, location.id, true)
      const token = yield* t.key(Scope.all)
      const image = yield* Effect.promise(
        async () =>
          new Uint8Array(
            await sharp({ create: { width: 1800, height: 1200, channels: 3, background: "#8a9a80" } })
              .jpeg()
              .toBuffer()
          )
      )
      const exampleLocation = str(
        spec,
        ...["paths", "/api/v1/inventory", "post", "requestBody", "content", "application/json"],
        ...["examples", "set", "value", "location_id"]
      )

      const answers: Array<{ method: string; path: string; reply: Reply }> = []
      for (const key of replayOrder) {
        const [, path] = key.split(" ") as [string, string]
        // Each operation with examples has one content type.
        const content = record(entriesOf(at(spec, "paths", path, "post", "requestBody", "content"))[0]?.[1])
        for (const [name, example] of entriesOf(content.examples)) {
          const reply =
            path === "/api/v1/media"
              ? yield* Effect.flatMap(
                  uploadMedia(
                    url,
                    token,
                    {
                      external_id: str(example, "value", "external_id"),
                      name: str(example, "value", "name"),
                      purpose: str(example, "value", "purpose")
                    },
                    image
                  ),
                  (r) => Effect.as(waitJob(url, token, str(r.body, "job", "id")), r)
                )
              : yield* call(url, "POST", path.replace("/api/v1", ""), {
                  token,
                  body: JSON.parse(JSON.stringify(example.value).replaceAll(exampleLocation, location.id))
                })
          expect([reply.status, `${key} ${name}`, reply.status < 300 ? "" : reply.text]).toEqual([
            path === "/api/v1/media" || (path === "/api/v1/imports" && name === "batch") ? 202 : 200,
            `${key} ${name}`,
            ""
          ])
          if (path !== "/api/v1/media") answers.push({ method: "POST", path, reply })
        }
      }

      // Catalog answers are serialised as core built them, not encoded through their schemas: every record
      // the examples made, read back in each mode, must still be what the document describes.
      for (const resource of Resource.resourceNames) {
        for (const mode of ["catalog", "prices"]) {
          const page = yield* call(url, "GET", `/${resource}?limit=100&mode=${mode}`, { token })
          answers.push({ method: "GET", path: `/api/v1/${resource}`, reply: page })
          const listed = records(page.body)
          expect([resource, mode, listed.length > 0]).toEqual([resource, mode, true])
          if (mode === "catalog") {
            for (const item of listed) {
              const one = yield* call(url, "GET", `/${resource}/${str(item, "id")}`, { token })
              answers.push({ method: "GET", path: `/api/v1/${resource}/{id}`, reply: one })
            }
          }
        }
      }
      const contract = makeResponseContract(record(spec))
      const problems = answers.flatMap(({ method, path, reply }) =>
        contract
          .check(method, path, {
            status: reply.status,
            contentType: reply.headers.get("content-type") ?? "",
            requestIdHeader: reply.headers.get("x-request-id"),
            text: reply.text
          })
          .map((problem) => `${method} ${path}: ${problem}`)
      )
      expect(problems).toEqual([])
    })
  )

  it.effect("its parameters say what the server enforces: types, bounds, enums, uuids and required headers", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      const spec: unknown = JSON.parse(readFileSync(golden, "utf8"))
      const t = yield* tenant({ stock_package: true, inventory_module: true })
      /** Values the parameter's schema refuses, each of which the server must refuse too. */
      const refused = (schema: JsonObject): ReadonlyArray<string> => [
        ...(schema.type === "integer"
          ? ["abc", "1.5", String(num(schema, "minimum") - 1), String(num(schema, "maximum") + 1)]
          : []),
        ...(schema.enum !== undefined ? ["nonsense"] : []),
        ...(schema.format === "uuid" ? ["not-a-uuid"] : []),
        ...(schema.maxLength !== undefined ? ["x".repeat(num(schema, "maxLength") + 1)] : []),
        ...(schema.minLength !== undefined && num(schema, "minLength") > 0 ? [""] : []),
        ...(schema.pattern !== undefined ? ["!!"] : [])
      ]
      let checked = 0
      for (const { key, path, method, operation } of operations(spec)) {
        const id = "01a209ac-a61a-795b-a198-6d0c07e85c59"
        const concrete = path.replace("/api/v1", "").replace("{id}", id)
        if (!path.startsWith("/api/v1") || path.endsWith("openapi.json")) continue
        // A key per operation, so that the checks stay under the per-key rate limit.
        const token = yield* t.key(Scope.all)
        const jsonExample = at(
          entriesOf(at(operation, "requestBody", "content", "application/json", "examples"))[0]?.[1],
          "value"
        )
        for (const parameter of asArray(operation, "parameters").map((item) => record(item))) {
          const schema = record(parameter, "schema")
          if (parameter.in === "query") {
            const accepted = at(schema, "examples", 0) ?? schema.default ?? at(schema, "enum", 0)
            if (accepted !== undefined) {
              const ok = yield* call(
                url,
                "GET",
                `${concrete}?${str(parameter, "name")}=${encodeURIComponent(String(accepted))}`,
                { token }
              )
              expect([key, parameter.name, ok.status]).toEqual([key, parameter.name, 200])
            }
            for (const value of refused(schema)) {
              const reply = yield* call(
                url,
                "GET",
                `${concrete}?${str(parameter, "name")}=${encodeURIComponent(value)}`,
                { token }
              )
              expect([key, parameter.name, value, reply.status, at(reply.body, "error", "code")]).toEqual([
                key,
                parameter.name,
                value,
                422,
                "validation_failed"
              ])
              expect(detailPaths(reply.body)).toContain(`query.${str(parameter, "name")}`)
              checked++
            }
          }
          if (parameter.in === "path") {
            const reply = yield* call(url, method.toUpperCase(), path.replace("/api/v1", "").replace("{id}", "4711"), {
              token,
              ...(operation.requestBody === undefined ? {} : { body: {} })
            })
            expect([key, reply.status, at(reply.body, "error", "code")]).toEqual([key, 404, "not_found"])
            checked++
          }
          if (parameter.in === "header") {
            expect([key, parameter.name, parameter.required]).toEqual([key, "idempotency-key", true])
            for (const value of [undefined, "short", "has spaces in it"]) {
              const reply = yield* call(url, method.toUpperCase(), concrete, {
                token,
                idempotencyKey: null,
                ...(value === undefined ? {} : { headers: { "idempotency-key": value } }),
                // A valid body: the body is decoded before the headers.
                ...(jsonExample === undefined ? {} : { body: jsonExample })
              })
              expect([key, value, reply.status, at(reply.body, "error", "code")]).toEqual([
                key,
                value,
                422,
                "idempotency_key_invalid"
              ])
              checked++
            }
          }
        }
      }
      expect(checked).toBeGreaterThan(100)
    })
  )
})

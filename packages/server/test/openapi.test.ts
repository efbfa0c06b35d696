import { Validator } from "@seriousme/openapi-schema-validator"
import { OpenApi } from "@effect/platform"
import { Api } from "@catalog-sync/adapter-http"
import { describe, expect, it } from "vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const spec = OpenApi.fromApi(Api)
const golden = fileURLToPath(new URL("../../../docs/openapi.json", import.meta.url))

describe("OpenAPI description", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(spec) as never)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe("3.1")
  })

  it("lists every endpoint of the catalog contract under /api/v1", () => {
    const paths = Object.keys(spec.paths)
    for (const resource of ["products", "categories", "collections", "brands", "customization-types", "customization-groups", "customization-options"]) {
      expect(paths).toEqual(expect.arrayContaining([`/api/v1/${resource}`, `/api/v1/${resource}/{id}`, `/api/v1/${resource}/upsert`]))
    }
    expect(Object.keys(spec.paths["/api/v1/products/{id}"]!)).toEqual(expect.arrayContaining(["get", "delete"]))
    expect(paths).toContain("/api/v1/me")
  })

  it("documents every error status and the bearer scheme", () => {
    const upsert = spec.paths["/api/v1/products/upsert"]!.post!
    expect(Object.keys(upsert.responses).sort()).toEqual(["200", "400", "401", "403", "404", "409", "413", "415", "422", "429", "431", "500", "503"])
    expect(spec.components.securitySchemes).toHaveProperty("bearer")
    const body = (spec.components.schemas as Record<string, any>).ProductUpsert
    expect(body.additionalProperties).toBe(false)
  })

  // UPDATE_OPENAPI=1 npx vitest run packages/server/test/openapi.test.ts rewrites the golden copy.
  it("matches the committed golden copy, so contract changes are deliberate", () => {
    if (process.env.UPDATE_OPENAPI === "1") writeFileSync(golden, `${JSON.stringify(spec, null, 2)}\n`)
    const committed = JSON.parse(readFileSync(golden, "utf8"))
    expect(spec).toEqual(committed)
  })
})

import { Validator } from "@seriousme/openapi-schema-validator"
import { Api } from "@catalog-sync/contract"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import { Option, Result, Schema, SchemaAST, SchemaIssue } from "effect"
import { OpenApi } from "effect/http-api"
import { describe, expect, it } from "vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { asArray, at, isObject, type JsonObject, record, str } from "./Json.js"
import { endpoints, isMultipart } from "./robustness/ApiSurface.js"

const errorsGuide = readFileSync(fileURLToPath(new URL("../../../docs/errors.md", import.meta.url)), "utf8")
/** `code -> statuses` from the table of docs/errors.md. */
const documentedCodes = new Map<string, Set<number>>()
for (const [, code, status] of errorsGuide.matchAll(/^\|\s*`([a-z_]+)`\s*\|\s*(\d{3})\s*\|/gm)) {
  documentedCodes.set(code!, (documentedCodes.get(code!) ?? new Set()).add(Number(status)))
}

/** The objects below an OpenAPI map (`examples`, `content`, `responses`) by key; none when there is no map. */
const entriesOf = (map: unknown): ReadonlyArray<readonly [string, JsonObject]> =>
  isObject(map) ? Object.entries(map).map(([key, value]) => [key, record(value)] as const) : []
const pointer = (segment: string) => segment.replace(/~/g, "~0").replace(/\//g, "~1")

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
    for (const resource of [
      "products",
      "categories",
      "collections",
      "brands",
      "customization-types",
      "customization-groups",
      "customization-options"
    ]) {
      expect(paths).toEqual(
        expect.arrayContaining([`/api/v1/${resource}`, `/api/v1/${resource}/{id}`, `/api/v1/${resource}/upsert`])
      )
    }
    expect(Object.keys(spec.paths["/api/v1/products/{id}"]!)).toEqual(expect.arrayContaining(["get", "delete"]))
    expect(paths).toContain("/api/v1/me")
  })

  it("documents every error status and the bearer scheme", () => {
    const upsert = spec.paths["/api/v1/products/upsert"]!.post!
    expect(Object.keys(upsert.responses).sort()).toEqual([
      "200",
      "400",
      "401",
      "403",
      "404",
      "408",
      "409",
      "413",
      "415",
      "422",
      "429",
      "431",
      "500",
      "503"
    ])
    expect(spec.components.securitySchemes).toHaveProperty("bearer")
    expect(at(spec, "components", "schemas", "ProductUpsert", "additionalProperties")).toBe(false)
  })

  it("declares every path, query and header parameter the contract decodes, with its type and whether it is required", () => {
    const declared = (schema: Option.Option<{ readonly ast: SchemaAST.AST }>, where: string) =>
      Option.match(schema, {
        onNone: () => [],
        onSome: ({ ast }) => {
          if (!SchemaAST.isObjects(ast)) throw new Error(`${where}: not a struct (${ast._tag})`)
          return ast.propertySignatures.map((p) => ({
            in: where,
            name: String(p.name),
            required: !SchemaAST.isOptional(p.type)
          }))
        }
      })
    for (const endpoint of endpoints) {
      const operation = record(spec, "paths", endpoint.openApiPath, endpoint.method.toLowerCase())
      const expected = [
        ...declared(endpoint.pathSchema, "path"),
        ...declared(endpoint.urlParamsSchema, "query"),
        ...declared(endpoint.headersSchema, "header")
      ]
      const documented = asArray(operation, "parameters").map((p) => ({
        in: at(p, "in"),
        name: at(p, "name"),
        required: at(p, "required")
      }))
      expect(documented, endpoint.key).toEqual(expected)
      for (const parameter of asArray(operation, "parameters")) {
        const where = `${endpoint.key} ${str(parameter, "name")}`
        expect(at(parameter, "description"), where).toMatch(/\w/)
        expect(at(parameter, "schema", "type"), where).toBeDefined()
      }
      for (const name of endpoint.openApiPath.match(/\{\w+\}/g) ?? []) {
        expect(documented, endpoint.key).toContainEqual({ in: "path", name: name.slice(1, -1), required: true })
      }
      if (endpoint.method === "POST" || endpoint.method === "DELETE") {
        expect(documented, endpoint.key).toContainEqual({ in: "header", name: "idempotency-key", required: true })
      }
    }
    const parameters = entriesOf(spec.paths).flatMap(([, item]) =>
      entriesOf(item).flatMap(([, operation]) => asArray(operation, "parameters").map((parameter) => record(parameter)))
    )
    for (const limit of parameters.filter((p) => p.name === "limit"))
      expect(limit.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 50 })
    for (const id of parameters.filter((p) => p.in === "path"))
      expect(id.schema).toMatchObject({ type: "string", format: "uuid" })
    // The request parts are parameters, not stray component schemas.
    for (const name of ["PathParams", "QueryParams", "IdempotencyHeaders"])
      expect(spec.components.schemas).not.toHaveProperty(name)
  })

  it("has examples for every request body and every response, each valid for its schema and as the server decodes it", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true })
    ;(addFormats as unknown as (ajv: Ajv2020) => void)(ajv)
    ajv.addFormat("binary", true)
    ajv.addSchema(structuredClone(spec), "openapi")
    const problems: Array<string> = []
    const check = (where: string, schemaPointer: string, examples: unknown) => {
      if (entriesOf(examples).length === 0) return void problems.push(`${where}: no example`)
      const validate = ajv.compile({ $ref: `openapi#${schemaPointer}` })
      for (const [name, example] of entriesOf(examples)) {
        if (typeof example.summary !== "string" || example.summary === "") problems.push(`${where} ${name}: no summary`)
        if (!validate(example.value)) problems.push(`${where} ${name}: ${ajv.errorsText(validate.errors)}`)
      }
    }
    const formatter = SchemaIssue.makeFormatterDefault()
    // As the server decodes: unknown keys refused (the Api's PayloadParseOptions; v4 schemas carry none).
    const decodeOne = (schema: Schema.Codec<unknown, unknown>, value: unknown) =>
      Schema.decodeUnknownResult(schema, { errors: "all", onExcessProperty: "error" })(value)
    /** Decoded by one of `schemas` (an endpoint declares one success schema per status). */
    const decodes = (where: string, schemas: ReadonlyArray<Schema.Codec<unknown, unknown>>, examples: unknown) => {
      for (const [name, example] of entriesOf(examples)) {
        const failures: Array<string> = []
        for (const schema of schemas) {
          const decoded = decodeOne(schema, example.value)
          if (Result.isSuccess(decoded)) break
          failures.push(formatter(decoded.failure.issue))
        }
        if (failures.length === schemas.length) problems.push(`${where} ${name}: ${failures.join("; ")}`)
      }
    }
    for (const endpoint of endpoints) {
      const method = endpoint.method.toLowerCase()
      const base = `/paths/${pointer(endpoint.openApiPath)}/${method}`
      const operation = record(spec, "paths", endpoint.openApiPath, method)
      for (const [type, content] of entriesOf(at(operation, "requestBody", "content"))) {
        check(`${endpoint.key} request`, `${base}/requestBody/content/${pointer(type)}/schema`, content.examples)
        // The server's own decoder: strict, with every rule of the body schema.
        if (!isMultipart(endpoint))
          decodes(`${endpoint.key} request`, [Option.getOrThrow(endpoint.payloadSchema)], content.examples)
      }
      for (const [status, response] of entriesOf(operation.responses)) {
        const json = at(response, "content", "application/json")
        if (!isObject(json)) continue
        check(
          `${endpoint.key} ${status}`,
          `${base}/responses/${status}/content/application~1json/schema`,
          json.examples
        )
        if (Number(status) < 400) decodes(`${endpoint.key} ${status}`, endpoint.successSchemas, json.examples)
        for (const [name, example] of Number(status) >= 400 ? entriesOf(json.examples) : []) {
          const code = at(example, "value", "error", "code")
          if (typeof code !== "string" || !documentedCodes.get(code)?.has(Number(status)))
            problems.push(`${endpoint.key} ${status} ${name}: ${code} is not a ${status} code of docs/errors.md`)
        }
      }
    }
    expect(problems).toEqual([])
  })

  // UPDATE_OPENAPI=1 npx vitest run packages/server/test/openapi.test.ts rewrites the golden copy.
  it("matches the committed golden copy, so contract changes are deliberate", () => {
    if (process.env.UPDATE_OPENAPI === "1") writeFileSync(golden, `${JSON.stringify(spec, null, 2)}\n`)
    const committed = readFileSync(golden, "utf8")
    expect(spec).toEqual(JSON.parse(committed))
    // Byte for byte too: readers and tools that diff the file see the key order the server sends.
    expect(committed).toBe(`${JSON.stringify(spec, null, 2)}\n`)
  })
})

/**
 * API fuzzing: for every endpoint of the contract, requests generated from its own schemas and mutated
 * into invalid ones (see FuzzRequests.ts) are sent to a real server holding seeded companies. Every
 * answer must be declared by the served OpenAPI document (status and body schema), carry the spec's
 * error body on 4xx and never be a 5xx. Seeded: SOAK_SEED replays a run.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { at, record } from "../Json.js"
import { call, freshKey, TestServerLive } from "../TestServer.js"
import { type Endpoint, endpoints, fillPath } from "./ApiSurface.js"
import { type FuzzRequest, known, knownUpper, requestArbitrary } from "./FuzzRequests.js"
import { rawSend } from "./RawSend.js"
import { makeResponseContract } from "./ResponseContract.js"
import { catalogResources, pngImage, type SeededCompany, seedCompany } from "./SeededCompany.js"
import { scaled, seed } from "./Soak.js"

const perEndpoint = scaled(75, 260)
const runSeed = seed(20_261_122)
/** Requests per company stay below its rate limit (600 a minute), per key below 120. */
const requestsPerCompany = 450
const keysPerCompany = 5

interface Target extends SeededCompany {
  readonly keys: ReadonlyArray<string>
}

/** The id of a real record of the kind an endpoint addresses. */
const knownId = (endpoint: Endpoint, company: Target, n: number): string => {
  const segment = endpoint.path.split("/")[3] ?? ""
  if ((catalogResources as ReadonlyArray<string>).includes(segment))
    return company.records[segment as keyof Target["records"]]
  if (segment === "inventory") return company.cardId
  if (segment === "media") return company.mediaId
  if (segment === "jobs") return n % 2 === 0 ? company.importJobId : company.mediaJobId
  return company.importJobId
}

const garbage = new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 2, 3])

const encodeBody = (request: FuzzRequest, company: Target, png: Uint8Array) =>
  Effect.promise(async (): Promise<{ bytes?: Uint8Array | string; contentType?: string }> => {
    const body = request.body
    const fill = (text: string) =>
      text
        .replaceAll(`"${known}"`, `"${company.records.categories}"`)
        .replaceAll(`"${knownUpper}"`, `"${company.records.categories.toUpperCase()}"`)
    switch (body.kind) {
      case "none":
        return {}
      case "json":
        return {
          bytes: body.value === undefined ? "" : fill(JSON.stringify(body.value)),
          contentType: body.contentType ?? "application/json"
        }
      case "raw":
        return {
          bytes: typeof body.bytes === "string" ? fill(body.bytes) : body.bytes,
          ...(body.contentType === undefined ? {} : { contentType: body.contentType })
        }
      case "multipart": {
        // Built by hand: FormData would encode a field's bytes as a file part, or its text as UTF-8.
        const boundary = `fuzz-${freshKey()}`
        const part = (headers: string, content: Uint8Array | string) =>
          Buffer.concat([Buffer.from(`--${boundary}\r\n${headers}\r\n\r\n`), Buffer.from(content), Buffer.from("\r\n")])
        const file = (name: string, content: Uint8Array) =>
          part(`Content-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: image/png`, content)
        const parts = body.fields.map(([k, v]) => part(`Content-Disposition: form-data; name="${k}"`, v))
        if (body.file !== "none") parts.push(file("image.png", body.file === "garbage" ? garbage : png))
        if (body.file === "twice") parts.push(file("again.png", png))
        return {
          bytes: Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]),
          contentType: `multipart/form-data; boundary=${boundary}`
        }
      }
    }
  })

const describeRequest = (request: FuzzRequest, path: string) => {
  const body = request.body
  const shown =
    body.kind === "json"
      ? JSON.stringify(body.value)
      : body.kind === "raw"
        ? String(body.bytes)
        : body.kind === "multipart"
          ? JSON.stringify(body)
          : ""
  return `${request.endpoint.key} [${request.mutation}] ${request.endpoint.method} ${path} headers=${JSON.stringify(request.headers)} auth=${request.auth} body=${(shown ?? "").slice(0, 300)}`
}

layer(TestServerLive, { excludeTestServices: true, timeout: 600_000 })("API fuzzing", (it) => {
  it.effect(
    `every endpoint answers generated and mutated requests as the served OpenAPI document says, never 5xx (seed ${runSeed})`,
    () =>
      Effect.gen(function* () {
        const requests = endpoints.flatMap((endpoint, i) =>
          fc.sample(requestArbitrary(endpoint), { seed: runSeed + i, numRuns: perEndpoint })
        )
        // Interleaved, so that concurrent requests hit different endpoints.
        const ordered = requests
          .map((request, i) => ({ request, order: (i % perEndpoint) * endpoints.length + Math.floor(i / perEndpoint) }))
          .sort((a, b) => a.order - b.order)
          .map((r) => r.request)
        const companyCount = Math.ceil(ordered.length / requestsPerCompany)
        console.log(
          `API fuzzing: seed ${runSeed}, ${ordered.length} requests over ${endpoints.length} endpoints, ${companyCount} companies`
        )
        const companies: ReadonlyArray<Target> = yield* Effect.forEach(
          Array.from({ length: companyCount }, (_, i) => i),
          (i) =>
            Effect.gen(function* () {
              const company = yield* seedCompany(`fuzz${i}`)
              const keys = yield* Effect.forEach(Array.from({ length: keysPerCompany }), () => company.newKey())
              return { ...company, keys }
            }),
          { concurrency: 3 }
        )
        const document = record((yield* call(companies[0]!.url, "GET", "/openapi.json")).body)
        expect(document.openapi).toMatch(/^3\.1/)
        const contract = makeResponseContract(document)
        const png = yield* pngImage
        const counts = new Map<string, Map<number, number>>()
        const problems: Array<string> = []

        yield* Effect.forEach(
          ordered,
          (request, i) =>
            Effect.gen(function* () {
              const company = companies[i % companyCount]!
              const token = company.keys[Math.floor(i / companyCount) % keysPerCompany]!
              const id =
                request.pathId === known
                  ? knownId(request.endpoint, company, i)
                  : request.pathId === knownUpper
                    ? knownId(request.endpoint, company, i).toUpperCase()
                    : request.pathId
              const path = fillPath(request.endpoint, id) + (request.query === "" ? "" : `?${request.query}`)
              const { bytes, contentType } = yield* encodeBody(request, company, png)
              const headers: Record<string, string> = {}
              if (request.auth === "key") headers.authorization = `Bearer ${token}`
              if (request.auth === "malformed") headers.authorization = `Bearer ${token.slice(0, -3)}\u00e9x`
              if (request.endpoint.method === "POST" || request.endpoint.method === "DELETE")
                headers["idempotency-key"] = freshKey()
              if (contentType !== undefined && contentType !== "") headers["content-type"] = contentType
              for (const [name, value] of Object.entries(request.headers)) {
                if (value === null) delete headers[name]
                else headers[name] = value
              }
              const sent = yield* Effect.result(rawSend(company.url, request.endpoint.method, path, headers, bytes))
              if (sent._tag === "Failure") {
                problems.push(`no answer (${sent.failure.message}): ${describeRequest(request, path)}`)
                return
              }
              const reply = sent.success
              const byStatus = counts.get(request.endpoint.key) ?? new Map<number, number>()
              byStatus.set(reply.status, (byStatus.get(reply.status) ?? 0) + 1)
              counts.set(request.endpoint.key, byStatus)
              const header = (name: string) => {
                const value = reply.headers[name]
                return Array.isArray(value) ? (value[0] ?? null) : (value ?? null)
              }
              // A path id that is not a single segment may route elsewhere: only the error body is checked then.
              const routed =
                reply.status === 404 &&
                at(JSON.parse(reply.text || "{}") as unknown, "error", "code") === "route_not_found"
                  ? undefined
                  : request.endpoint.openApiPath
              const found = [
                ...contract.check(request.endpoint.method, routed, {
                  status: reply.status,
                  contentType: header("content-type") ?? "",
                  requestIdHeader: header("x-request-id"),
                  text: reply.text
                })
              ]
              if (request.mustRefuse === true && (reply.status < 400 || reply.status >= 500))
                found.push(`status ${reply.status} for input that must be refused`)
              if (found.length > 0) problems.push(`${found.join("; ")} <- ${describeRequest(request, path)}`)
            }),
          { concurrency: 4, discard: true }
        )

        const table = [...counts.entries()]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(
            ([key, byStatus]) =>
              `${key.padEnd(30)} ${String([...byStatus.values()].reduce((a, b) => a + b, 0)).padStart(5)}  ${[
                ...byStatus.entries()
              ]
                .sort(([a], [b]) => a - b)
                .map(([s, n]) => `${s}:${n}`)
                .join(" ")}`
          )
        console.log(`API fuzzing: requests per endpoint (status:count)\n${table.join("\n")}`)
        expect(counts.size).toBe(endpoints.length)
        expect(problems.slice(0, 15)).toEqual([])
      }),
    scaled(120_000, 900_000)
  )
})

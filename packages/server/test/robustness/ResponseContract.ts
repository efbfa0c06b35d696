/**
 * Checks a response against the OpenAPI document the server serves: the status must be one the
 * operation declares, the body must match that status's schema (Ajv, JSON Schema 2020-12, the
 * document's components compiled once), and every error must carry the spec's error body.
 */
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import { at, isObject } from "../Json.js"

export interface Observed {
  readonly status: number
  readonly contentType: string
  readonly requestIdHeader: string | null
  readonly text: string
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** JSON pointer segment escaping (RFC 6901). */
const pointer = (segment: string) => segment.replace(/~/g, "~0").replace(/\//g, "~1")

export const makeResponseContract = (document: object) => {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true })
  ;(addFormats as unknown as (ajv: Ajv2020) => void)(ajv)
  ajv.addSchema(document, "openapi")
  const validators = new Map<string, ReturnType<typeof ajv.compile>>()
  const validatorFor = (ref: string) => {
    let validate = validators.get(ref)
    if (validate === undefined) {
      validate = ajv.compile({ $ref: ref })
      validators.set(ref, validate)
    }
    return validate
  }

  /** Problems with one response of `method openApiPath` (undefined path: no such operation). Empty when it conforms. */
  const check = (method: string, openApiPath: string | undefined, observed: Observed): ReadonlyArray<string> => {
    const problems: Array<string> = []
    if (observed.status >= 500) problems.push(`status ${observed.status}`)
    if (observed.requestIdHeader === null || !uuid.test(observed.requestIdHeader))
      problems.push("no X-Request-Id uuid header")
    const json = observed.contentType.startsWith("application/json")
    let body: unknown = undefined
    if (json) {
      try {
        body = JSON.parse(observed.text)
      } catch {
        problems.push("body is not JSON")
      }
    }
    if (observed.status >= 400) {
      const code = at(body, "error", "code")
      if (!json || typeof code !== "string" || code === "" || typeof at(body, "error", "message") !== "string") {
        problems.push(`4xx without the spec's error body: ${observed.text.slice(0, 200)}`)
      } else if (at(body, "request_id") !== observed.requestIdHeader) {
        problems.push("request_id differs from X-Request-Id")
      }
    }
    if (openApiPath === undefined) return problems
    const operation = at(document, "paths", openApiPath, method.toLowerCase())
    if (!isObject(operation)) return [...problems, `no operation ${method} ${openApiPath} in the document`]
    const declared = at(operation, "responses", String(observed.status))
    if (!isObject(declared))
      return [...problems, `status ${observed.status} is not declared for ${method} ${openApiPath}`]
    if (observed.status === 204 || observed.status === 304) return problems
    const content = declared.content
    const media = isObject(content) ? Object.keys(content) : []
    if (!json) {
      if (!media.some((type) => observed.contentType.startsWith(type)))
        problems.push(`content type ${observed.contentType} not declared (${media.join(", ")})`)
      return problems
    }
    if (!media.includes("application/json")) return [...problems, `JSON body where ${media.join(", ")} is declared`]
    const ref = `openapi#/paths/${pointer(openApiPath)}/${method.toLowerCase()}/responses/${observed.status}/content/application~1json/schema`
    const validate = validatorFor(ref)
    if (body !== undefined && !validate(body)) {
      problems.push(
        `body does not match the ${observed.status} schema: ${ajv.errorsText(validate.errors, { dataVar: "body" }).slice(0, 300)}`
      )
    }
    return problems
  }
  return { check }
}

/**
 * The OpenAPI document as the portal shows it: each operation's scopes and each error response's codes
 * written into the descriptions, and the guides linked from the introduction.
 */
import type { Guide } from "./Guides.js"

/** The methods the portal shows, in the order it shows them. */
const methods = ["get", "post", "put", "patch", "delete"] as const

/**
 * What the portal reads of an OpenAPI document: Effect's generated document (`OpenApi.fromApi`) is one,
 * and so is a document written by hand with only these parts.
 */
export interface ApiDocument {
  info?: { title?: string; version?: string; description?: string }
  paths?: Record<string, ApiPathItem>
}

/** A path's operations by method. */
export type ApiPathItem = { [Method in (typeof methods)[number]]?: ApiOperation }

/** What the portal reads and writes of an operation. */
export interface ApiOperation {
  summary?: string
  description?: string
  tags?: ReadonlyArray<string>
  parameters?: ReadonlyArray<ApiParameter>
  /** The responses by status. */
  responses?: Record<number, ApiResponse>
  /** The scopes the operation needs, as the portal writes them (`scopesOf`). */
  "x-scopes"?: string
}

/** What the portal reads and writes of a parameter. */
export interface ApiParameter {
  name: string
  in: string
  description?: string
}

/** What the portal reads and writes of a response. */
export interface ApiResponse {
  description?: string
  /** The body by media type; the portal narrows what it reads of one (its examples). */
  content?: Record<string, object>
}

/** The scopes an operation needs (spec 4.2-4.3, and the decisions in docs/spec-gaps.md). */
export const scopesOf = (method: string, path: string): string => {
  const p = path.replace(/^\/api\/v1/, "")
  const m = method.toUpperCase()
  if (p === "/me") return "Any valid key."
  if (p === "/health" || p === "/ready" || p.endsWith("openapi.json")) return "None (no key)."
  if (p.startsWith("/changes"))
    return "The read scope of each changed part: `catalog:read`, `prices:read`, `costs:read`, `stock:read`, `media:read`; a key with none of them gets 403."
  if (p.startsWith("/inventory"))
    return m === "GET"
      ? "`stock:read`; the company needs the stock package and inventory module."
      : "`stock:write`; the location must be assigned to the connection as writable."
  if (p.startsWith("/media")) return m === "GET" ? "`media:read`" : "`media:write`"
  if (p.startsWith("/imports") || p.startsWith("/jobs")) {
    if (m === "GET") return "Any valid key; only the connection's own jobs are visible."
    return "The write scopes of every record (retry: the same scopes, from an active key of the same connection)."
  }
  if (m === "GET") {
    return p.includes("{id}")
      ? "`catalog:read`. Price fields appear only with `prices:read`, cost with `costs:read`."
      : "`catalog:read`; with `mode=prices`, `prices:read` (a price-only key uses this)."
  }
  if (m === "DELETE") return "`catalog:write`"
  if (p.endsWith("/upsert")) {
    return "`mode: catalog` (default): `catalog:write`. `mode: prices`: `prices:write`. `mode: combined`: `catalog:write` for catalog fields and every create, `prices:write` for price fields. `cost` needs `costs:write`; an explicit selection-field `coefficient` needs `prices:write`."
  }
  return "See the description."
}

/** `status -> codes`, from the table in docs/errors.md. */
export const errorCodesByStatus = (errorsMarkdown: string | undefined): ReadonlyMap<string, ReadonlyArray<string>> => {
  const byStatus = new Map<string, Array<string>>()
  for (const match of (errorsMarkdown ?? "").matchAll(/^\|\s*`([a-z_]+)`\s*\|\s*(\d{3})\s*\|/gm)) {
    const [, code, status] = match
    if (code === undefined || status === undefined) continue
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  return byStatus
}

/** Every operation of the document: method, path, summary, tag. */
export const operationsOf = (spec: ApiDocument) =>
  Object.entries(spec.paths ?? {}).flatMap(([path, item]) =>
    methods.flatMap((method) => {
      const operation = item[method]
      return operation === undefined
        ? []
        : [{ method: method.toUpperCase(), path, summary: operation.summary ?? "", tag: operation.tags?.[0] ?? "" }]
    })
  )

/**
 * The document the portal shows: the API's own, with each operation's scopes and each error response's
 * codes written into the descriptions (renderers show descriptions; they ignore extensions), and the
 * guides linked from the introduction.
 */
export const documentForPortal = (spec: ApiDocument, guides: ReadonlyArray<Guide>): ApiDocument => {
  const doc = structuredClone(spec)
  const codes = errorCodesByStatus(guides.find((guide) => guide.slug === "errors")?.markdown)
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of methods) {
      const operation = item[method]
      if (operation === undefined) continue
      const scopes = `**Scopes:** ${scopesOf(method, path)}`
      operation.description = operation.description ? `${operation.description}\n\n${scopes}` : scopes
      operation["x-scopes"] = scopesOf(method, path)
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const list = codes.get(status)
        if (list === undefined || list.length === 0) continue
        response.description =
          `${response.description ?? ""} Codes: ${list.map((code) => `\`${code}\``).join(", ")}.`.trim()
      }
    }
  }
  for (const item of Object.values(doc.paths ?? {})) {
    for (const method of methods) {
      for (const parameter of item[method]?.parameters ?? []) {
        if (parameter.in !== "header" || parameter.name !== "idempotency-key") continue
        parameter.description = `${parameter.description} Test Request sends a fresh key when this one is left as it is.`
      }
    }
  }
  const links = guides.map((guide) => `[${guide.title}](guides/${guide.slug}.html)`).join(" · ")
  doc.info = {
    ...doc.info,
    description: `${doc.info?.description ?? ""}\n\n**Guides:** ${links}\n\n[Portal home](index.html) · [openapi.json](openapi.json)`
  }
  return doc
}

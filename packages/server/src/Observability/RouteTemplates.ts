import { HttpApi } from "@effect/platform"
import { Api } from "@catalog-sync/contract"

/**
 * The route template a request path matches (`/api/v1/products/:id`), for metric labels and span names:
 * a path itself would make one series per record id. Built once from the contract; paths outside it get
 * one of a few fixed names, so that a scan of random URLs cannot grow the series count.
 */
export interface RouteTemplates {
  readonly match: (method: string, path: string) => string
}

interface Template {
  readonly template: string
  readonly segments: ReadonlyArray<string>
}

const split = (path: string) => path.split("/").filter((segment) => segment !== "")

/** The contract's endpoints, plus the server's own routes outside it (portal, metrics). */
export const make = (extra: ReadonlyArray<readonly [method: string, path: string]> = []): RouteTemplates => {
  const byMethod = new Map<string, Array<Template>>()
  const add = (method: string, template: string) => {
    const list = byMethod.get(method) ?? []
    list.push({ template, segments: split(template) })
    byMethod.set(method, list)
  }
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => add(endpoint.method, endpoint.path)
  })
  for (const [method, path] of extra) add(method, path)
  // Literal segments first: `/media/:id` must not take `/media/upload`-like literal routes.
  for (const list of byMethod.values()) list.sort((a, b) => literals(b) - literals(a))
  return {
    match: (method, path) => {
      const segments = split(path)
      const candidates = byMethod.get(method === "HEAD" ? "GET" : method) ?? []
      for (const candidate of candidates) if (matches(candidate.segments, segments)) return candidate.template
      if (path === "/docs" || path.startsWith("/docs/")) return "/docs/*"
      return "unmatched"
    }
  }
}

const literals = (template: Template) => template.segments.filter((segment) => !segment.startsWith(":")).length

const matches = (template: ReadonlyArray<string>, path: ReadonlyArray<string>) => {
  if (template.length !== path.length) return false
  for (let i = 0; i < template.length; i++) {
    const part = template[i]!
    if (!part.startsWith(":") && part !== path[i]) return false
  }
  return true
}

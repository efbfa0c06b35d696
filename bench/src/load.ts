import autocannon from "autocannon"
import type { IncomingHttpHeaders } from "node:http"
import { isJsonObject, type JsonObject } from "./json.js"

export interface LoadRequest {
  readonly method?: autocannon.Request["method"]
  readonly path: string
  readonly headers?: Record<string, string>
  readonly body?: string
  /** Called before every request; returns what to send. */
  readonly next?: (context: JsonObject) => {
    path: string
    headers?: Record<string, string>
    body?: string
  }
  readonly onResponse?: (status: number, body: string, context: JsonObject, headers: IncomingHttpHeaders) => void
}

export interface LoadResult {
  /** 2xx responses per second. */
  readonly rps: number
  readonly total: number
  readonly p50: number
  readonly p99: number
  readonly statuses: Record<string, number>
  readonly errors: number
  readonly timeouts: number
}

/**
 * autocannon as version 8 runs it: `url` may list several servers, which take the connections in turn
 * (lib/url.js); @types/autocannon 7.12 types it as one string.
 */
const run = autocannon as (
  options: Omit<autocannon.Options, "url"> & { readonly url: string | Array<string> },
  done: (error: unknown, result: autocannon.Result) => void
) => autocannon.Instance

/** The state autocannon keeps per connection (typed `object`), which `next` writes and `onResponse` reads. */
const contextOf = (context: object): JsonObject => {
  if (!isJsonObject(context)) throw new Error("autocannon passed a request context that is not an object")
  return context
}

/**
 * One autocannon run in this process (a second process from the server's): no pipelining, fixed connections.
 * Several URLs share the connections, taking them in turn (servers on one database).
 */
export const load = (
  url: string | ReadonlyArray<string>,
  request: LoadRequest,
  options: { readonly seconds: number; readonly connections: number; readonly overallRate?: number }
): Promise<LoadResult> =>
  new Promise((resolve, reject) => {
    const base = {
      method: request.method ?? "GET",
      path: request.path,
      headers: request.headers ?? {},
      body: request.body
    }
    const { next, onResponse } = request
    run(
      {
        url: typeof url === "string" ? url : [...url],
        connections: options.connections,
        pipelining: 1,
        duration: options.seconds,
        timeout: 10,
        ...(options.overallRate === undefined ? {} : { overallRate: Math.max(1, Math.round(options.overallRate)) }),
        requests: [
          {
            ...base,
            ...(next === undefined
              ? {}
              : {
                  setupRequest: (req: autocannon.Request, context: object): autocannon.Request => {
                    const built = next(contextOf(context))
                    return {
                      ...req,
                      path: built.path,
                      headers: { ...base.headers, ...built.headers },
                      ...(built.body === undefined ? {} : { body: built.body })
                    }
                  }
                }),
            ...(onResponse === undefined
              ? {}
              : {
                  onResponse: (status: number, body: string, context: object, headers?: IncomingHttpHeaders) =>
                    onResponse(status, body, contextOf(context), headers ?? {})
                })
          }
        ]
      },
      (error, result) => {
        if (error) return reject(error)
        const statuses: Record<string, number> = {}
        for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = stat.count ?? 0
        const ok = Object.entries(statuses).reduce((n, [code, count]) => (code.startsWith("2") ? n + count : n), 0)
        resolve({
          rps: ok / options.seconds,
          total: result.requests.total,
          p50: result.latency.p50,
          p99: result.latency.p99,
          statuses,
          errors: result.errors,
          timeouts: result.timeouts
        })
      }
    )
  })

export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length === 0
    ? Number.NaN
    : sorted.length % 2 === 1
      ? sorted[mid]!
      : (sorted[mid - 1]! + sorted[mid]!) / 2
}

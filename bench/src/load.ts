import autocannon from "autocannon"

export interface LoadRequest {
  readonly method?: string
  readonly path: string
  readonly headers?: Record<string, string>
  readonly body?: string
  /** Called before every request; returns what to send. */
  readonly next?: (context: Record<string, unknown>) => {
    path: string
    headers?: Record<string, string>
    body?: string
  }
  readonly onResponse?: (
    status: number,
    body: string,
    context: Record<string, unknown>,
    headers: Record<string, string>
  ) => void
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
    const next = request.next
    autocannon(
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
                  setupRequest: (req: any, context: Record<string, unknown>) => {
                    const built = next(context)
                    return {
                      ...req,
                      path: built.path,
                      headers: { ...base.headers, ...built.headers },
                      ...(built.body === undefined ? {} : { body: built.body })
                    }
                  }
                }),
            ...(request.onResponse === undefined ? {} : { onResponse: request.onResponse })
          } as any
        ]
      } as any,
      (error: unknown, result: any) => {
        if (error) return reject(error)
        const statuses: Record<string, number> = {}
        for (const [code, stat] of Object.entries(result.statusCodeStats ?? {}))
          statuses[code] = (stat as { count: number }).count
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

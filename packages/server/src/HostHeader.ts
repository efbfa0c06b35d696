import { forwardedHosts, fromTrustedProxy, isValidHost, type ProxySettings } from "@catalog-sync/adapter-http"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { errorAnswer } from "./UnparsableRequests.js"

const refusal = (message: string) => ({ status: 400, reason: "Bad Request", code: "invalid_host", message }) as const

/** Why the request's host cannot be told, if it cannot; an absolute-form target is made origin-form. */
const hostProblem = (request: IncomingMessage, proxies: ProxySettings): string | undefined => {
  const url = request.url ?? ""
  // `GET http://api.example/path`: the target's host is the request's host, whatever Host says (RFC 9112 3.2.2).
  if (/^https?:\/\//i.test(url)) {
    let target: URL
    try {
      target = new URL(url)
    } catch {
      return "the request target is not a valid URL"
    }
    request.url = `${target.pathname}${target.search}`
    request.headers.host = target.host
    return undefined
  }
  const raw = request.rawHeaders
  let hosts = 0
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === "host") hosts++
  if (hosts > 1) return "the request has more than one Host header"
  const host = request.headers.host
  if (host !== undefined && !isValidHost(host))
    return "the Host header is not a host name or address with an optional port"
  if (fromTrustedProxy(request.socket.remoteAddress, proxies)) {
    for (const forwarded of forwardedHosts(request.headers, proxies.headers)) {
      if (!isValidHost(forwarded)) return "the forwarded host is not a host name or address with an optional port"
    }
  }
  return undefined
}

/**
 * The host a request names decides which company's keys it accepts (custom domains), so a request whose
 * host is ambiguous is refused with `400 invalid_host` before the API sees it: two Host headers (Node keeps
 * the first, a proxy may read the second), a Host that is not `host[:port]` (`api.beta.example:abc`,
 * `api.beta.example%2e`), or such a forwarded host from a trusted proxy. An absolute-form target
 * (`GET http://api.beta.example/api/v1/me`) is answered for its own host, as HTTP requires, and routed by
 * its path. The connection is closed after the refusal.
 */
export const refuseAmbiguousHosts = (server: Server, proxies: ProxySettings): Server => {
  const emit = server.emit
  const refused = (request: IncomingMessage, response: ServerResponse) => {
    const problem = hostProblem(request, proxies)
    if (problem === undefined) return false
    const { body, headers } = errorAnswer(refusal(problem))
    response.writeHead(400, headers).end(body)
    return true
  }
  // Ahead of every listener (the API's and the 100-continue check's): a refused request reaches none.
  server.emit = function (this: Server, event: string | symbol, ...args: Array<any>) {
    if ((event === "request" || event === "checkContinue") && refused(args[0], args[1])) return true
    return emit.apply(this, [event, ...args] as Parameters<Server["emit"]>)
  } as Server["emit"]
  return server
}

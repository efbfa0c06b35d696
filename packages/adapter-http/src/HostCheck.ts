import type { IncomingMessage } from "node:http"
import { forwardedHosts, fromTrustedProxy, isValidHost, type ProxySettings } from "./ClientOrigin.js"

/** An absolute-form target (`GET http://api.example/path`); the server's edge makes it origin-form. */
export const isAbsoluteForm = (url: string) => /^https?:\/\//i.test(url)

/**
 * Why the host of a request cannot be told, if it cannot: the host a request names decides which
 * company's keys it accepts (custom domains), so an ambiguous one is refused with `400 invalid_host`
 * before its key is looked at: two Host headers (Node keeps the first, a proxy may read the second), a
 * Host that is not `host[:port]` (`api.beta.example:abc`, `api.beta.example%2e`), such a forwarded host
 * from a trusted proxy, or an absolute-form target the edge could not make origin-form.
 */
export const hostProblem = (request: IncomingMessage, proxies: ProxySettings): string | undefined => {
  if (isAbsoluteForm(request.url ?? "")) return "the request target is not a valid URL"
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

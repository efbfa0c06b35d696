/**
 * The panel's cookies and request checks: the session cookie (HttpOnly, SameSite=Strict, Secure when the
 * request came over TLS), the sign-in form's token before there is a session, and the checks every
 * state-changing request passes (same origin, the form's token equal to the session's).
 */
import { fromTrustedProxy, normalizeHost, originOf, type ProxySettings } from "@catalog-sync/adapter-http"
import type { HttpServerRequest } from "effect/http"
import { Option } from "effect"
import { randomBytes, timingSafeEqual } from "node:crypto"

/** The session's token. */
export const sessionCookie = "panel_session"
/** The sign-in form's token, set with the form (no session exists yet to hold one). */
export const signInCookie = "panel_sign_in"

/** A random token for the sign-in form: 32 bytes, base64url. */
export const newFormToken = (): string => randomBytes(32).toString("base64url")

/** Whether two tokens are equal, in time that does not depend on where they differ. */
export const sameToken = (a: string | undefined, b: string | undefined): boolean => {
  if (a === undefined || b === undefined || a === "" || b === "") return false
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  // Lengths are not secret (every token has the same); unequal ones cannot be compared in constant time.
  return left.length === right.length && timingSafeEqual(left, right)
}

/**
 * Whether the request reached the client's side over TLS: the server's own TLS, or a trusted proxy
 * saying so (`X-Forwarded-Proto: https`, or `proto=https` in `Forwarded`, by the family it uses).
 */
export const overTls = (request: HttpServerRequest.HttpServerRequest, proxies: ProxySettings): boolean => {
  if (request.protocol === "https") return true
  if (!fromTrustedProxy(Option.getOrUndefined(request.remoteAddress), proxies)) return false
  const header = (name: string) => String(request.headers[name] ?? "").toLowerCase()
  if (proxies.headers === "forwarded") return /(^|[;,\s])proto="?https"?(\s*[;,]|$)/.test(header("forwarded"))
  return header("x-forwarded-proto").split(",")[0]?.trim() === "https"
}

/** A `Set-Cookie` value for the panel's cookies: path `base`, HttpOnly, SameSite=Strict, Secure over TLS. */
export const setCookie = (
  name: string,
  value: string,
  options: { readonly base: string; readonly secure: boolean; readonly maxAgeSeconds?: number }
): string =>
  [
    `${name}=${value}`,
    `Path=${options.base}`,
    "HttpOnly",
    "SameSite=Strict",
    ...(options.secure ? ["Secure"] : []),
    ...(options.maxAgeSeconds === undefined ? [] : [`Max-Age=${options.maxAgeSeconds}`])
  ].join("; ")

/** A `Set-Cookie` value that removes the cookie `name`. */
export const clearCookie = (name: string, options: { readonly base: string; readonly secure: boolean }) =>
  setCookie(name, "", { ...options, maxAgeSeconds: 0 })

/**
 * Whether a state-changing request comes from a page of this server: its `Origin` (or, without one, its
 * `Referer`) names the host the request was sent to. A request with neither is refused: every browser
 * that renders these forms sends `Origin` with a POST.
 */
export const sameOrigin = (request: HttpServerRequest.HttpServerRequest, proxies: ProxySettings): boolean => {
  const claimed = request.headers["origin"] ?? request.headers["referer"]
  if (claimed === undefined || claimed === "null") return false
  let host: string | undefined
  try {
    host = new URL(claimed).host
  } catch {
    return false
  }
  const target = originOf(request, proxies).host
  const port = (value: string | undefined) => /:(\d+)$/.exec(value ?? "")?.[1]
  const requestHost = request.headers["host"]
  // The names must match; the port too when the request was not forwarded (a proxy may change it).
  if (target === undefined || normalizeHost(host) !== target) return false
  return fromTrustedProxy(Option.getOrUndefined(request.remoteAddress), proxies) || port(host) === port(requestHost)
}

/**
 * The origin a form of the panel is sent from, as `sameOrigin` expects it: the scheme and the host the
 * client addressed (behind a trusted proxy, the host the proxy forwarded).
 */
export const panelOrigin = (request: HttpServerRequest.HttpServerRequest, proxies: ProxySettings): string => {
  const scheme = overTls(request, proxies) ? "https" : "http"
  const name = originOf(request, proxies).host ?? ""
  const sent = request.headers["host"] ?? ""
  // The Host header as sent (with its port) when it names that host; a proxy's forwarded name otherwise.
  return `${scheme}://${normalizeHost(sent) === name ? sent : name}`
}

/** The client's address, as the API's rules see it (behind trusted proxies, the nearest untrusted hop). */
export const clientAddress = (request: HttpServerRequest.HttpServerRequest, proxies: ProxySettings): string =>
  originOf(request, proxies).address ?? "unknown"

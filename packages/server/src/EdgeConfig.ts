import { parseTrustedProxies, type ProxyHeaders, proxyHeaderFamilies } from "@catalog-sync/adapter-http"
import { Config, Effect } from "effect"
import type { BlockList } from "node:net"
import { allReported, configError, setting, validated, variable } from "./ConfigReading.js"

/** The HTTP edge: the Node server's limits against slow and idle clients, proxies, key guessing. */
export interface EdgeSettings {
  /** A client must have sent the request line and headers within this (`HTTP_HEADERS_TIMEOUT_SECONDS`, default 10). */
  readonly headersTimeoutSeconds: number
  /** ... and the whole request, body included (`HTTP_REQUEST_TIMEOUT_SECONDS`, default 120: 10 MB at 1 Mbit/s takes 84 s). */
  readonly requestTimeoutSeconds: number
  /**
   * A body must arrive at this many bytes a second on average once the headers time-out has passed since
   * it began (`HTTP_BODY_MIN_BYTES_PER_SECOND`, default 1000; 0: no minimum).
   */
  readonly bodyMinBytesPerSecond: number
  /** An answer the client reads nothing of for this long is cut off (`HTTP_SEND_TIMEOUT_SECONDS`, default 30). */
  readonly sendTimeoutSeconds: number
  /** An idle kept-alive connection is closed after this (`HTTP_KEEP_ALIVE_TIMEOUT_SECONDS`, default 5). */
  readonly keepAliveTimeoutSeconds: number
  /** Connections open at once; further ones are closed at once (`HTTP_MAX_CONNECTIONS`, default 1000). */
  readonly maxConnections: number
  /**
   * Connections open at once from one client address (an IPv6 /64), trusted proxies aside
   * (`HTTP_MAX_CONNECTIONS_PER_ADDRESS`, default 100).
   */
  readonly maxConnectionsPerAddress: number
  /** Peers whose forwarding headers are believed (`TRUSTED_PROXIES`, default none). */
  readonly trustedProxies: BlockList | undefined
  /** Which forwarding headers they set (`TRUSTED_PROXY_HEADERS`: `x-forwarded`, the default, or `forwarded`). */
  readonly proxyHeaders: ProxyHeaders
  /** Invalid keys one client address may present per minute before it gets 429 (`AUTH_FAILURES_PER_MINUTE`, default 30). */
  readonly authFailuresPerMinute: number
  /** Invalid keys of all clients together per minute before each one's next is blocked (`AUTH_FAILURES_GLOBAL_PER_MINUTE`, default 300). */
  readonly authFailuresGlobalPerMinute: number
}

const positiveSeconds = (name: string, defaultSeconds: number) =>
  Config.Number(variable(name, String(defaultSeconds))).pipe(
    Config.withDefault(defaultSeconds),
    validated(name, `${name} must be a number of seconds > 0`, (n) => n > 0)
  )

const atLeast = (name: string, fallback: number, min: number) =>
  Config.Int(variable(name, String(fallback))).pipe(
    Config.withDefault(fallback),
    validated(name, `${name} must be a whole number >= ${min}`, (n) => n >= min)
  )

/** `HTTP_*`, `TRUSTED_PROXIES`, `TRUSTED_PROXY_HEADERS` and `AUTH_FAILURES_*` (see EdgeSettings and docs/configuration.md). */
export const EdgeConfig: Config.Config<EdgeSettings> = allReported({
  headersTimeoutSeconds: positiveSeconds("HTTP_HEADERS_TIMEOUT_SECONDS", 10),
  requestTimeoutSeconds: positiveSeconds("HTTP_REQUEST_TIMEOUT_SECONDS", 120),
  bodyMinBytesPerSecond: atLeast("HTTP_BODY_MIN_BYTES_PER_SECOND", 1000, 0),
  sendTimeoutSeconds: positiveSeconds("HTTP_SEND_TIMEOUT_SECONDS", 30),
  keepAliveTimeoutSeconds: positiveSeconds("HTTP_KEEP_ALIVE_TIMEOUT_SECONDS", 5),
  maxConnections: atLeast("HTTP_MAX_CONNECTIONS", 1000, 1),
  maxConnectionsPerAddress: atLeast("HTTP_MAX_CONNECTIONS_PER_ADDRESS", 100, 1),
  trustedProxies: Config.String(variable("TRUSTED_PROXIES", "")).pipe(
    Config.withDefault(""),
    Config.mapEffect((text) =>
      Effect.try({
        try: () => parseTrustedProxies(text),
        catch: (error) => configError("TRUSTED_PROXIES", `TRUSTED_PROXIES: ${(error as Error).message}`)
      })
    )
  ),
  proxyHeaders: setting<ProxyHeaders>(
    "TRUSTED_PROXY_HEADERS",
    "x-forwarded",
    `must be ${proxyHeaderFamilies.join(" or ")}: the forwarding headers the trusted proxies set`,
    (raw) => proxyHeaderFamilies.find((family) => family === raw.toLowerCase())
  ),
  authFailuresPerMinute: atLeast("AUTH_FAILURES_PER_MINUTE", 30, 1),
  authFailuresGlobalPerMinute: atLeast("AUTH_FAILURES_GLOBAL_PER_MINUTE", 300, 1)
}).pipe(
  validated(
    "HTTP_HEADERS_TIMEOUT_SECONDS",
    "HTTP_HEADERS_TIMEOUT_SECONDS must not exceed HTTP_REQUEST_TIMEOUT_SECONDS",
    (edge) => edge.headersTimeoutSeconds <= edge.requestTimeoutSeconds
  )
)

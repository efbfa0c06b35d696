import { AuthFailureBudget, type ProxySettings, TrustedProxies } from "@catalog-sync/adapter-http"
import { Effect, Layer } from "effect"
import type { Server } from "node:http"
import { capConnectionsPerAddress } from "./ConnectionsPerAddress.js"
import { reserveForHealthChecks } from "./HealthReserve.js"
import { originFormTargets } from "./HostHeader.js"
import { answerPipelinedInTurn } from "./PipelinedRequests.js"
import { EdgeConfig, type EdgeSettings } from "./ServerConfig.js"
import { cutOffSlowBodies } from "./SlowBodies.js"
import { cutOffStalledAnswers } from "./StalledAnswers.js"

/** The trusted proxies of the settings, as the API's edge reads them. */
export const proxiesOf = (edge: EdgeSettings): ProxySettings => ({
  list: edge.trustedProxies,
  headers: edge.proxyHeaders
})

/**
 * The Node server's limits from the settings, applied before it listens: the time-outs (headers, whole
 * request, body rate, stalled answers, idle keep-alive), the connection caps (in all, with a few more for
 * health checks; per address) and pipelined requests served one at a time.
 * Node checks its header and request timeouts every `connectionsCheckingInterval` (30 s by default, so a
 * slow client could hold a connection that much past its timeout); here a quarter of the headers timeout,
 * at most 1 s, and the body rate as often. The API's port and the metrics port both run with them.
 */
export const applyEdgeSettings = (server: Server, edge: EdgeSettings) => {
  server.headersTimeout = Math.round(edge.headersTimeoutSeconds * 1000)
  server.requestTimeout = Math.round(edge.requestTimeoutSeconds * 1000)
  server.keepAliveTimeout = Math.round(edge.keepAliveTimeoutSeconds * 1000)
  const checkMillis = Math.max(50, Math.min(1000, Math.round(server.headersTimeout / 4)))
  ;(server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = checkMillis
  cutOffSlowBodies(server, edge.bodyMinBytesPerSecond, server.headersTimeout, checkMillis)
  cutOffStalledAnswers(server, Math.round(edge.sendTimeoutSeconds * 1000))
  answerPipelinedInTurn(server)
  capConnectionsPerAddress(server, edge.maxConnectionsPerAddress, proxiesOf(edge))
  reserveForHealthChecks(server, edge.maxConnections)
  return server
}

/**
 * Applies EdgeConfig to the API's `server`, and makes its absolute-form targets origin-form; provide it to
 * the layer that makes the server listen.
 */
export const EdgeLimitsLive = (server: Server) =>
  Layer.effectDiscard(
    Effect.map(Effect.orDie(EdgeConfig), (edge) => originFormTargets(applyEdgeSettings(server, edge)))
  )

/** What the API's edge reads from the settings: the trusted proxies and the failed-key budgets. */
export const EdgeReferencesLive = Layer.unwrap(
  Effect.map(Effect.orDie(EdgeConfig), (edge) =>
    Layer.mergeAll(
      Layer.succeed(TrustedProxies, proxiesOf(edge)),
      Layer.succeed(AuthFailureBudget, {
        perMinute: edge.authFailuresPerMinute,
        globalPerMinute: edge.authFailuresGlobalPerMinute
      })
    )
  )
)

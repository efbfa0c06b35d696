import { AuthFailureBudget, TrustedProxies } from "@catalog-sync/adapter-http"
import { Effect, Layer } from "effect"
import type { Server } from "node:http"
import { EdgeConfig, type EdgeSettings } from "./ServerConfig.js"

/**
 * The Node server's limits from the settings, applied before it listens. Node checks its header and
 * request timeouts every `connectionsCheckingInterval` (30 s by default, so a slow client could hold a
 * connection that much past its timeout); here a quarter of the headers timeout, at most 1 s.
 */
export const applyEdgeSettings = (server: Server, edge: EdgeSettings) => {
  server.headersTimeout = Math.round(edge.headersTimeoutSeconds * 1000)
  server.requestTimeout = Math.round(edge.requestTimeoutSeconds * 1000)
  server.keepAliveTimeout = Math.round(edge.keepAliveTimeoutSeconds * 1000)
  server.maxConnections = edge.maxConnections
  ;(server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.max(
    50,
    Math.min(1000, Math.round(server.headersTimeout / 4))
  )
}

/** Applies EdgeConfig to `server`; provide it to the layer that makes the server listen. */
export const EdgeLimitsLive = (server: Server) =>
  Layer.effectDiscard(Effect.map(Effect.orDie(EdgeConfig), (edge) => applyEdgeSettings(server, edge)))

/** What the API's edge reads from the settings: the trusted proxies and the failed-key budget. */
export const EdgeReferencesLive = Layer.unwrapEffect(
  Effect.map(Effect.orDie(EdgeConfig), (edge) =>
    Layer.mergeAll(
      Layer.succeed(TrustedProxies, { list: edge.trustedProxies }),
      Layer.succeed(AuthFailureBudget, { perMinute: edge.authFailuresPerMinute })
    )
  )
)

import { type HttpApp, HttpServerRequest } from "@effect/platform"
import { Cause, Effect } from "effect"
import { performance } from "node:perf_hooks"
import * as Instruments from "./Instruments.js"
import type { RouteTemplates } from "./RouteTemplates.js"

/**
 * Counts every answer and its latency by route template, method and status. It wraps the whole server
 * (outside the Envelope), so it sees the status that was sent, error answers included.
 */
export const middleware =
  (routes: RouteTemplates) =>
  (app: HttpApp.Default): HttpApp.Default =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const started = performance.now()
      return Effect.onExit(app, (exit) =>
        Effect.sync(() => {
          // The Envelope answers every failure itself: what reaches here is a client that went away (499) or a defect.
          const status = exit._tag === "Success" ? exit.value.status : Cause.isInterruptedOnly(exit.cause) ? 499 : 500
          const labels = {
            route: routes.match(request.method, request.url.split("?")[0] ?? ""),
            method: request.method,
            status: String(status)
          }
          Instruments.record(Instruments.httpRequests, 1, labels)
          Instruments.record(Instruments.httpRequestDuration, (performance.now() - started) / 1000, labels)
        })
      )
    })

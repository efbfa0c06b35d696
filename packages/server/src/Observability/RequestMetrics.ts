import { type HttpApp, HttpServerRequest } from "@effect/platform"
import type { RouteTable } from "@catalog-sync/adapter-http"
import { Cause, Effect } from "effect"
import { performance } from "node:perf_hooks"
import * as Instruments from "./Instruments.js"

/**
 * Counts every answer and its latency by route template (from the route table: a path itself would make
 * one series per record id), method and status. It wraps the whole server (outside the Envelope), so it
 * sees the status that was sent, error answers included.
 */
export const middleware =
  (routes: RouteTable.RouteTable) =>
  (app: HttpApp.Default): HttpApp.Default =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const started = performance.now()
      return Effect.onExit(app, (exit) =>
        Effect.sync(() => {
          // The Envelope answers every failure itself: what reaches here is a client that went away (499) or a defect.
          const status = exit._tag === "Success" ? exit.value.status : Cause.isInterruptedOnly(exit.cause) ? 499 : 500
          const labels = {
            route: routes.templateOf(request.method, request.url),
            method: request.method,
            status: String(status)
          }
          Instruments.record(Instruments.httpRequests, 1, labels)
          Instruments.record(Instruments.httpRequestDuration, (performance.now() - started) / 1000, labels)
        })
      )
    })

import type { RouteTable } from "@catalog-sync/adapter-http"
import { Cause, Effect, type Exit } from "effect"
import { HttpServerError, HttpServerRequest, type HttpServerResponse } from "effect/http"
import { performance } from "node:perf_hooks"
import * as Instruments from "./Instruments.js"

/**
 * The status of an answer. The Envelope answers nearly every failure itself: what reaches here is a client
 * that went away (499), a defect, or an error of the platform's (a path no router takes), answered as the
 * server answers it.
 */
export const statusOf = (exit: Exit.Exit<HttpServerResponse.HttpServerResponse, unknown>): number =>
  exit._tag === "Success"
    ? exit.value.status
    : Cause.hasInterruptsOnly(exit.cause)
      ? 499
      : HttpServerError.causeResponseStripped(exit.cause)[0].status

/**
 * Counts every answer and its latency by route template (from the route table: a path itself would make
 * one series per record id), method and status. It wraps the whole server (outside the Envelope), so it
 * sees the status that was sent, error answers included.
 */
export const middleware =
  (routes: RouteTable.RouteTable) =>
  <E, R>(
    app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const started = performance.now()
      return Effect.onExit(app, (exit) =>
        Effect.sync(() => {
          const status = statusOf(exit)
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

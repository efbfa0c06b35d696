import { FastAnswering } from "@catalog-sync/adapter-http"
import { expect } from "@effect/vitest"
import { Layer } from "effect"
import { at, record } from "./Json.js"
import type { Reply } from "./TestServer.js"

/** A request sent with these headers is answered by HttpApi's router, even where its endpoint has a fast answer. */
export const byRouter: Readonly<Record<string, string>> = { "x-test-answer-by": "router" }

/**
 * The server's choice of answer for the tests that compare the two (adapter-http `FastAnswering`): a fast
 * answer where its endpoint has one, but for requests sent `byRouter`. `fastAnswered` collects the
 * endpoints (`group.endpoint`) the server was asked about: those that have a fast answer.
 */
export const routerOnRequest = () => {
  const fastAnswered = new Set<string>()
  const layer = Layer.succeed(FastAnswering, (request, route) => {
    fastAnswered.add(`${route.group}.${route.name}`)
    return request.headers["x-test-answer-by"] !== "router"
  })
  return { fastAnswered, layer }
}

/**
 * What two answers to the same request must share when one is a fast answer (adapter-http `FastAnswer`)
 * and the other the route's: status, body but its request id, the envelope's headers, and the names of
 * every header (the clock's `date` aside).
 */
export const comparable = (reply: Reply) => ({
  status: reply.status,
  body: reply.body === undefined ? reply.text : { ...record(reply.body), request_id: "(each its own)" },
  contentType: reply.headers.get("content-type"),
  cacheControl: reply.headers.get("cache-control"),
  nosniff: reply.headers.get("x-content-type-options"),
  rateLimit: reply.headers.get("ratelimit-limit"),
  retryAfter: reply.headers.get("retry-after") !== null,
  idMatchesBody: reply.body === undefined || reply.headers.get("x-request-id") === at(reply.body, "request_id"),
  headerNames: [...reply.headers.keys()].filter((name) => name !== "date").sort()
})

/** The fast answer, once it is checked to be the route's (each with its own request id). */
export const expectSameAnswer = ([fast, routed]: readonly [Reply, Reply]) => {
  expect(comparable(fast)).toEqual(comparable(routed))
  if (fast.body !== undefined) expect(at(fast.body, "request_id")).not.toBe(at(routed.body, "request_id"))
  return fast
}

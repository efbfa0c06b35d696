import { expect } from "@effect/vitest"
import type { Reply } from "./TestServer.js"

/**
 * What two answers to the same question must share when one comes from a fast path outside HttpApi's
 * router (adapter-http `FastRoute`) and the other from the route: status, body but its request id, the
 * envelope's headers, and the names of every header (the clock's `date` aside).
 */
export const comparable = (reply: Reply) => ({
  status: reply.status,
  body: { ...reply.body, request_id: "(each its own)" },
  contentType: reply.headers.get("content-type"),
  cacheControl: reply.headers.get("cache-control"),
  nosniff: reply.headers.get("x-content-type-options"),
  rateLimit: reply.headers.get("ratelimit-limit"),
  idMatchesBody: reply.headers.get("x-request-id") === reply.body?.request_id,
  headerNames: [...reply.headers.keys()].filter((name) => name !== "date").sort()
})

/** The fast path's answer, once it is checked to be the route's (each with its own request id). */
export const expectSameAnswer = ([fast, routed]: readonly [Reply, Reply]) => {
  expect(comparable(fast)).toEqual(comparable(routed))
  expect(fast.body.request_id).not.toBe(routed.body.request_id)
  return fast
}

import { Effect, FiberRef } from "effect"

/** The id of the request being served; set once per request by the envelope middleware. */
export const CurrentRequestId = FiberRef.unsafeMake<string>("")

export const requestId = FiberRef.get(CurrentRequestId)

/** Adds `request_id` to a success body. */
export const withRequestId = <A extends object>(body: A) =>
  Effect.map(requestId, (request_id) => ({ request_id, ...body }))

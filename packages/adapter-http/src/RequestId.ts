import { FiberRef } from "effect"

/** The id of the request being served; set once per request by the envelope middleware. */
export const CurrentRequestId = FiberRef.unsafeMake<string>("")

export const requestId = FiberRef.get(CurrentRequestId)

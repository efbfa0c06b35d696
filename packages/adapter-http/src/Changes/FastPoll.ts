import { ChangeCursor, type ChangeFeed } from "@catalog-sync/core"
import { Common } from "@catalog-sync/contract"
import type { Context } from "effect"
import type { Admission } from "../Admission.js"
import { fastGetRoute } from "../FastRoute.js"
import { changesAnswer } from "./Http.js"

// A feed poll from a cursor, exactly: the cursor in the form the contract's query schema accepts, no
// other parameter, no escapes, no trailing slash.
const pollPath = new RegExp(`^/api/v1/changes\\?cursor=(${ChangeCursor.pattern})$`)

/**
 * `GET /changes?cursor=...`, what every connector repeats every few seconds, answered without HttpApi's
 * router and its per-endpoint steps (query schema, security middleware, handler), as `FastGet` answers a
 * record: the same admission (401/403/429 and the RateLimit headers), the same use case with the route's
 * default limit, the same body and, through the envelope, the same errors and headers. Any other query
 * (a limit, a resource filter, no cursor, a malformed one) is left to HttpApi, which answers it as
 * before; so is everything with tracing on. The endpoint stays declared in the contract, and the API
 * fuzzer checks these answers against the served document.
 */
export const fastPoll = (feed: ChangeFeed.ChangeFeed, admission: Context.Tag.Service<typeof Admission>) =>
  fastGetRoute(admission, pollPath, (matched) =>
    changesAnswer(feed, { cursor: matched[1]!, limit: Common.defaultLimit })
  )

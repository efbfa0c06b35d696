import { HttpApiBuilder, type HttpServerResponse } from "@effect/platform"
import { ChangeFeed, type Principal } from "@catalog-sync/core"
import { Effect } from "effect"
import { Api, Common } from "@catalog-sync/contract"
import { api, type ApiErrorOf } from "../ErrorResponses.js"
import { requestId } from "../RequestId.js"
import { ok } from "../JsonAnswer.js"

/** The answer of `GET /changes`, by the route's handler and by the envelope's `FastPoll`. */
export const changesAnswer = (
  feed: ChangeFeed.ChangeFeed,
  params: ChangeFeed.FeedParams
): Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  ApiErrorOf<Effect.Effect.Error<ReturnType<ChangeFeed.ChangeFeed["read"]>>>,
  Principal.CurrentPrincipal
> =>
  Effect.gen(function* () {
    const page = yield* api(feed.read(params))
    return ok({ request_id: yield* requestId, ...page })
  })

export const ChangesHttpLive = HttpApiBuilder.group(Api, "changes", (handlers) =>
  Effect.gen(function* () {
    const feed = yield* ChangeFeed.ChangeFeed
    return handlers.handle("changes", ({ urlParams }) =>
      changesAnswer(feed, {
        cursor: urlParams.cursor,
        limit: urlParams.limit ?? Common.defaultLimit,
        resources: urlParams.resource?.split(",")
      })
    )
  })
)

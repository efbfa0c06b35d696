import { HttpApiBuilder } from "@effect/platform"
import { ChangeFeed } from "@catalog-sync/core"
import { Effect } from "effect"
import { Api } from "@catalog-sync/contract"
import { api } from "../ErrorResponses.js"
import { requestId } from "../RequestId.js"
import { ok } from "../JsonAnswer.js"

export const ChangesHttpLive = HttpApiBuilder.group(Api, "changes", (handlers) =>
  Effect.gen(function* () {
    const feed = yield* ChangeFeed.ChangeFeed
    return handlers.handle("changes", ({ urlParams }) =>
      Effect.gen(function* () {
        const page = yield* api(
          feed.read({
            cursor: urlParams.cursor,
            limit: urlParams.limit ?? 50,
            resources: urlParams.resource?.split(",")
          })
        )
        return ok({ request_id: yield* requestId, ...page })
      })
    )
  })
)

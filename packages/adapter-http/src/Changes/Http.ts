import { HttpApiBuilder } from "effect/http-api"
import { ChangeFeed } from "@catalog-sync/core"
import { Effect } from "effect"
import { Api, Common } from "@catalog-sync/contract"
import { api } from "../ErrorResponses.js"
import { fastAnswer } from "../FastAnswer.js"
import { servicesAtBuild } from "../GroupServices.js"
import { requestId } from "../RequestId.js"
import { serialised } from "../Answers.js"

interface ChangesQuery {
  readonly cursor?: string | undefined
  readonly limit?: number | undefined
  readonly resource?: string | undefined
}

/** The handler of `GET /changes`, by the route and by its fast answer. */
const changes =
  (feed: ChangeFeed.ChangeFeed["Service"]) =>
  ({ query }: { readonly query: ChangesQuery }) =>
    Effect.gen(function* () {
      const page = yield* api(
        feed.read({
          cursor: query.cursor,
          limit: query.limit ?? Common.defaultLimit,
          resources: query.resource?.split(",")
        })
      )
      return serialised({ request_id: yield* requestId, ...page })
    })

export const ChangesHttpLive = servicesAtBuild(
  HttpApiBuilder.group(Api, "changes", (handlers) =>
    Effect.map(ChangeFeed.ChangeFeed, (feed) => handlers.handle("changes", changes(feed)))
  )
)

/**
 * The feed poll, what every connector repeats every few seconds, answered fast (FastAnswer) by the
 * route's handler: an up-to-date poll costs about what reading the company's head costs.
 */
export const ChangesFastAnswers = Effect.flatMap(ChangeFeed.ChangeFeed, (feed) =>
  Effect.all([fastAnswer(Api, "changes", "changes", changes(feed))])
)

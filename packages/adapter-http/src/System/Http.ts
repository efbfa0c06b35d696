import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { ServiceUnavailable } from "../ApiErrors.js"
import { requestId } from "../RequestId.js"
import { Readiness } from "./Api.js"

export const SystemHttpLive = HttpApiBuilder.group(Api, "system", (handlers) =>
  Effect.gen(function* () {
    const ready = yield* Readiness
    return handlers
      .handle("health", () => Effect.map(requestId, (request_id) => ({ request_id, status: "ok" as const })))
      .handle("ready", () =>
        ready.pipe(
          Effect.flatMap(() => requestId),
          Effect.map((request_id) => ({ request_id, status: "ok" as const })),
          Effect.catchAll(() =>
            Effect.flatMap(requestId, (request_id) =>
              Effect.fail(new ServiceUnavailable({ request_id, error: { code: "not_ready", message: "the database does not answer" } }))
            )
          )
        )
      )
  })
)

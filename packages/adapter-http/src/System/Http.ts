import { HttpApiBuilder } from "effect/http-api"
import { Effect } from "effect"
import { Api } from "@catalog-sync/contract"
import { ApiErrors } from "@catalog-sync/contract"
import { requestId } from "../RequestId.js"
import { Readiness } from "./Readiness.js"

export const SystemHttpLive = HttpApiBuilder.group(Api, "system", (handlers) =>
  Effect.gen(function* () {
    const ready = yield* Readiness
    return handlers
      .handle("health", () => Effect.map(requestId, (request_id) => ({ request_id, status: "ok" as const })))
      .handle("ready", () =>
        ready.pipe(
          Effect.flatMap(() => requestId),
          Effect.map((request_id) => ({ request_id, status: "ok" as const })),
          Effect.catch(() =>
            Effect.flatMap(requestId, (request_id) =>
              Effect.fail(
                new ApiErrors.ServiceUnavailable({
                  request_id,
                  error: { code: "not_ready", message: "the database does not answer" }
                })
              )
            )
          )
        )
      )
  })
)

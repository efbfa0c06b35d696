import { Ids } from "@catalog-sync/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { requestErrors, serverErrors } from "../ApiErrors.js"
import { operationDocs } from "../Examples.js"
import { healthExamples, readyExamples } from "./Examples.js"

const Status = Schema.Struct({ request_id: Ids.UUID, status: Schema.Literal("ok") })

/** The probes need no key, so no Authentication declares their 500 and 503. */
const errors = [...requestErrors, ...serverErrors] as const

/** Liveness and readiness probes for load balancers; no key needed. */
export const SystemApi = HttpApiGroup.make("system")
  .annotate(OpenApi.Description, "Probes for load balancers; no key needed.")
  .add(
    HttpApiEndpoint.get("health", "/health", { success: Status, error: errors })
      .annotate(OpenApi.Summary, "Liveness")
      .annotate(OpenApi.Description, "200 while the process serves requests; no key needed.")
      .annotate(OpenApi.Transform, operationDocs(healthExamples)),
    HttpApiEndpoint.get("ready", "/ready", { success: Status, error: errors })
      .annotate(OpenApi.Summary, "Readiness: the database answers")
      .annotate(
        OpenApi.Description,
        "200 when the database answers, else 503 not_ready; no key needed. Point load balancers here."
      )
      .annotate(OpenApi.Transform, operationDocs(readyExamples))
  )

import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { operationExamples } from "../Examples.js"
import { healthExamples, readyExamples } from "./Examples.js"

const Status = Schema.Struct({ request_id: Schema.UUID, status: Schema.Literal("ok") })

/** Liveness and readiness probes for load balancers; no key needed. */
export const SystemApi = HttpApiGroup.make("system")
  .annotate(OpenApi.Description, "Probes for load balancers; no key needed.")
  .add(
    HttpApiEndpoint.get("health", "/health")
      .addSuccess(Status)
      .annotate(OpenApi.Summary, "Liveness")
      .annotate(OpenApi.Description, "200 while the process serves requests; no key needed.")
      .annotate(OpenApi.Transform, operationExamples(healthExamples))
  )
  .add(
    HttpApiEndpoint.get("ready", "/ready")
      .addSuccess(Status)
      .annotate(OpenApi.Summary, "Readiness: the database answers")
      .annotate(
        OpenApi.Description,
        "200 when the database answers, else 503 not_ready; no key needed. Point load balancers here."
      )
      .annotate(OpenApi.Transform, operationExamples(readyExamples))
  )

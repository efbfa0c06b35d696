import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Context, type Effect, Schema } from "effect"

/** Whether the server can serve requests (the database answers); provided by the composition root. */
export class Readiness extends Context.Tag("@catalog-sync/adapter-http/Readiness")<Readiness, Effect.Effect<void, unknown>>() {}

const Status = Schema.Struct({ request_id: Schema.UUID, status: Schema.Literal("ok") })

/** Liveness and readiness probes for load balancers; no key needed. */
export const SystemApi = HttpApiGroup.make("system")
  .add(HttpApiEndpoint.get("health", "/health").addSuccess(Status).annotate(OpenApi.Summary, "Liveness"))
  .add(HttpApiEndpoint.get("ready", "/ready").addSuccess(Status).annotate(OpenApi.Summary, "Readiness: the database answers"))

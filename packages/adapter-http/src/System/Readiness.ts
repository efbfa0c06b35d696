import { Context, type Effect } from "effect"

/** Whether the server can serve requests (the database answers); provided by the composition root. */
export class Readiness extends Context.Service<Readiness, Effect.Effect<void, unknown>>()(
  "@catalog-sync/adapter-http/Readiness"
) {}

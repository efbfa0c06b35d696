import { Accounts, IdempotencyStore, ImageProcessor, JobKinds } from "@catalog-sync/core"
import { JobTrace } from "@catalog-sync/core/adapter-support"
import { Effect, Layer } from "effect"

/**
 * Spans around the ports a request or a job goes through, added without the core or the adapters knowing
 * (each database transaction and statement already has its span from @effect/sql). Installed only when
 * tracing is on, so that a server without it does no span work at all. Attributes never hold a key, a
 * secret, a body or a value a client sent.
 */

const span = (attributes: Record<string, string | number> = {}) => ({ captureStackTrace: false, attributes }) as const

export const accounts = Layer.effect(
  Accounts.Accounts,
  Effect.map(Accounts.Accounts, (inner) =>
    Accounts.Accounts.of({
      ...inner,
      findKey: (...args) => Effect.withSpan(inner.findKey(...args), "authenticate", span())
    })
  )
)

export const idempotencyStore = Layer.effect(
  IdempotencyStore.IdempotencyStore,
  Effect.map(IdempotencyStore.IdempotencyStore, (inner) =>
    IdempotencyStore.IdempotencyStore.of({
      ...inner,
      claim: (request) =>
        Effect.withSpan(
          Effect.tap(inner.claim(request), (claim) => Effect.annotateCurrentSpan("idempotency.claim", claim._tag)),
          "idempotency.claim",
          span()
        )
    })
  )
)

export const imageProcessor = Layer.effect(
  ImageProcessor.ImageProcessor,
  Effect.map(ImageProcessor.ImageProcessor, (inner) =>
    ImageProcessor.ImageProcessor.of({
      ...inner,
      process: (...args) => Effect.withSpan(inner.process(...args), "image.process", span())
    })
  )
)

/** A job's run is a trace of its own (it outlives the request that queued it), linked to that request's span. */
export const jobKinds = Layer.effect(
  JobKinds.JobKinds,
  Effect.map(JobKinds.JobKinds, (inner) => {
    const traced = (kind: keyof typeof inner) => ({
      ...inner[kind],
      process: (...args: Parameters<JobKinds.JobKindHandler["process"]>) =>
        Effect.withSpan(inner[kind].process(...args), `job ${kind}`, {
          root: true,
          kind: "consumer",
          captureStackTrace: false,
          links: JobTrace.linksTo(args[0].traceParent),
          attributes: { "job.kind": kind, "job.id": args[0].id, "job.run": args[0].run }
        })
    })
    return JobKinds.JobKinds.of({ import: traced("import"), media: traced("media") })
  })
)

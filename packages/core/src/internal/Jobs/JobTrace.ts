import { Effect, Option, Tracer } from "effect"

/**
 * A job runs as a trace of its own, long after the request that queued it; the job row keeps that
 * request's span as a W3C `traceparent` so that the job's trace can link back to it. Nothing is kept
 * when the request is not traced or not sampled (tracing off: the current span is a no-op one).
 */
export const currentTraceParent: Effect.Effect<string | null> = Effect.currentSpan.pipe(
  Effect.map((span) => (span.sampled ? `00-${span.traceId}-${span.spanId}-01` : null)),
  Effect.orElseSucceed(() => null)
)

const traceParentFormat = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

/** The link from a job's span to the span that queued it; none when the job kept no (valid) traceparent. */
export const linksTo = (traceParent: string | null): ReadonlyArray<Tracer.SpanLink> =>
  Option.fromNullOr(traceParent === null ? null : traceParentFormat.exec(traceParent)).pipe(
    Option.match({
      onNone: () => [],
      onSome: ([, traceId, spanId, flags]) => [
        {
          span: Tracer.externalSpan({
            traceId: traceId!,
            spanId: spanId!,
            sampled: (Number.parseInt(flags!, 16) & 1) === 1
          }),
          attributes: {}
        }
      ]
    })
  )

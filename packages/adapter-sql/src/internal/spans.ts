import { Effect, References } from "effect"

/**
 * `Effect.withSpan` when the fiber's tracer is on, else nothing. With tracing off (the default, and
 * every unsampled request) a span still costs a no-op span, a copy of the request's context and a
 * finalizer per call, several times per request (docs/performance.md, "What each design choice buys").
 */
export const span =
  (name: string, attributes?: Readonly<Record<string, unknown>>) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withFiber<A, E, R>((fiber) =>
      fiber.getRef(References.TracerEnabled)
        ? Effect.withSpan(
            self,
            name,
            attributes === undefined ? { captureStackTrace: false } : { captureStackTrace: false, attributes }
          )
        : self
    )

import type { PersistencePorts } from "@catalog-sync/adapter-sql"
import { Layer, Option } from "effect"
import type { SqlClient } from "effect/sql"
import type { MediaPorts } from "../MediaPorts.js"
import { metricsEnabled, type RuntimeSettings } from "../ServerConfig.js"
import * as InstrumentedPorts from "./InstrumentedPorts.js"
import * as TracedPorts from "./TracedPorts.js"

/**
 * `base` with its ports re-provided through the tracing decorators (when tracing is on) and then the
 * metrics decorators (when metrics are on); unchanged when both are off, so that neither costs anything then.
 */
export const observed = <A, E, R, M, T>(
  runtime: RuntimeSettings,
  base: Layer.Layer<A, E, R>,
  measured: Layer.Layer<M, never, M> | undefined,
  traced: Layer.Layer<T, never, T> | undefined
): Layer.Layer<A, E, R> => {
  const withSpans =
    traced !== undefined && Option.isSome(runtime.tracing)
      ? (traced as unknown as Layer.Layer<never, never, A>).pipe(Layer.provideMerge(base))
      : base
  return measured !== undefined && metricsEnabled(runtime.metrics)
    ? (measured as unknown as Layer.Layer<never, never, A>).pipe(Layer.provideMerge(withSpans))
    : withSpans
}

/** The media ports with image processing measured and traced, when asked. */
export const observedMedia = (runtime: RuntimeSettings, media: Layer.Layer<MediaPorts>): Layer.Layer<MediaPorts> =>
  observed(runtime, media, InstrumentedPorts.imageProcessor, TracedPorts.imageProcessor)

/** The persistence ports with transactions, idempotency claims, import records and key lookups measured and traced, when asked. */
export const observedPersistence = <E>(
  runtime: RuntimeSettings,
  persistence: Layer.Layer<PersistencePorts | SqlClient.SqlClient, E>
) =>
  observed(
    runtime,
    persistence,
    Layer.mergeAll(InstrumentedPorts.transactor, InstrumentedPorts.idempotencyStore, InstrumentedPorts.importStore),
    Layer.mergeAll(TracedPorts.accounts, TracedPorts.idempotencyStore)
  )

import { expect, it } from "@effect/vitest"
import { Effect, References, Tracer } from "effect"
import fc from "fast-check"
import { currentTraceParent, linksTo } from "../src/internal/Jobs/JobTrace.js"
import { prop } from "./properties.js"

const hex = (length: number) =>
  fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: length, maxLength: length })

it.effect("a job queued outside any span, or with the tracer off, keeps no trace context", () =>
  Effect.gen(function* () {
    expect(yield* currentTraceParent).toBeNull()
    const off = yield* currentTraceParent.pipe(
      Effect.withSpan("request"),
      Effect.provideService(References.TracerEnabled, false)
    )
    expect(off).toBeNull()
  })
)

it.effect("inside a sampled span it keeps that span's traceparent; inside an unsampled one nothing", () =>
  Effect.gen(function* () {
    const [span, traceParent] = yield* Effect.all([Effect.currentSpan, currentTraceParent]).pipe(
      Effect.withSpan("request")
    )
    expect(traceParent).toBe(`00-${span.traceId}-${span.spanId}-01`)
    // A sampler that drops every trace: its spans exist (ids and all) but are not recorded.
    const native = yield* Effect.tracer
    const dropping = Tracer.make({
      span: (options) => native.span({ ...options, sampled: false }),
      context: native.context
    })
    expect(yield* currentTraceParent.pipe(Effect.withSpan("request"), Effect.withTracer(dropping))).toBeNull()
  })
)

prop(
  "the link of a kept traceparent points at its trace and span; a malformed or missing one gives no link",
  [hex(32), hex(16), fc.boolean()],
  ([traceId, spanId, sampled]) => {
    const [link, ...rest] = linksTo(`00-${traceId}-${spanId}-${sampled ? "01" : "00"}`)
    expect(rest).toHaveLength(0)
    expect(link?.span).toMatchObject({ _tag: "ExternalSpan", traceId, spanId, sampled })
    expect(linksTo(null)).toHaveLength(0)
    expect(linksTo(`00-${traceId}-${spanId}`)).toHaveLength(0)
    expect(linksTo(`01-${traceId}-${spanId}-01`)).toHaveLength(0)
    expect(linksTo(`00-${traceId.toUpperCase()}Z-${spanId}-01`)).toHaveLength(0)
  }
)

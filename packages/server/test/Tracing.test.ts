import { JobTrace } from "@catalog-sync/core/adapter-support"
import { expect, it } from "@effect/vitest"
import { Effect, Tracer } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { RouteTable } from "@catalog-sync/adapter-http"
import { requestSpans } from "../src/Observability/Tracing.js"

/** A tracer whose sampler keeps a request or not, recording the name of every span it is asked to make. */
const recording = (native: Tracer.Tracer, sampled: boolean) => {
  const spans: Array<Tracer.Span> = []
  const tracer = Tracer.make({
    span: (options) => {
      const span = native.span({ ...options, sampled })
      spans.push(span)
      return span
    },
    context: native.context
  })
  return { spans, made: () => spans.map((span) => span.name), tracer }
}

/** A request handler that opens spans of its own (as the use case and @effect/sql do) and queues a job. */
const handler = Effect.gen(function* () {
  const traceParent = yield* JobTrace.currentTraceParent.pipe(
    Effect.withSpan("sql.transaction"),
    Effect.withSpan("use case")
  )
  // Under a current span the OTel bridge enters that span's context on every fiber step: cost for nothing.
  const parent = yield* Effect.serviceOption(Tracer.ParentSpan)
  return HttpServerResponse.text(`${traceParent ?? "none"} ${parent._tag}`, { status: 201 })
})

const serve = (tracer: Tracer.Tracer) =>
  requestSpans(RouteTable.make())(handler).pipe(
    Effect.provideService(
      HttpServerRequest.HttpServerRequest,
      HttpServerRequest.fromWeb(new Request("http://localhost/api/v1/categories/upsert", { method: "POST" }))
    ),
    Effect.withTracer(tracer)
  )

it.effect(
  "an unsampled request makes its own span only: nothing inside it is traced or under it, and its job keeps no parent",
  () =>
    Effect.gen(function* () {
      const { made, spans, tracer } = recording(yield* Effect.tracer, false)
      const response = yield* serve(tracer)
      expect(response.status).toBe(201)
      expect(made()).toEqual(["POST /api/v1/categories/upsert"])
      expect(spans[0]!.attributes.get("http.response.status_code")).toBe(201)
      expect(yield* Effect.promise(() => HttpServerResponse.toWeb(response).text())).toBe("none None")
    })
)

it.effect("a sampled request traces everything inside it, and its job keeps the innermost span as parent", () =>
  Effect.gen(function* () {
    const { made, spans, tracer } = recording(yield* Effect.tracer, true)
    const response = yield* serve(tracer)
    expect(response.status).toBe(201)
    expect(spans[0]!.attributes.get("http.response.status_code")).toBe(201)
    expect(made()).toEqual(["POST /api/v1/categories/upsert", "use case", "sql.transaction"])
    expect(yield* Effect.promise(() => HttpServerResponse.toWeb(response).text())).toMatch(
      /^00-[0-9a-f]{32}-[0-9a-f]{16}-01 Some$/
    )
  })
)

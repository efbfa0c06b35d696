import { expect, layer } from "@effect/vitest"
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto"
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { ROOT_CONTEXT, trace } from "@opentelemetry/api"
import { Effect } from "effect"
import { OtlpReceiver, OtlpReceiverLive } from "./OtlpReceiver.js"

layer(OtlpReceiverLive)("the test receiver's protobuf reader", (it) => {
  it.effect("reads the spans the protobuf exporter sends as the JSON exporter's same spans read", () =>
    Effect.gen(function* () {
      const receiver = yield* OtlpReceiver
      const url = `${receiver.url}/v1/traces`
      const provider = new BasicTracerProvider({
        spanProcessors: [
          new SimpleSpanProcessor(new JsonExporter({ url })),
          new SimpleSpanProcessor(new ProtobufExporter({ url }))
        ]
      })
      const tracer = provider.getTracer("test")
      const parent = tracer.startSpan("parent", {
        attributes: { text: "é ü", count: 200, negative: -3, ratio: 0.25, on: true, list: ["a", "b"] }
      })
      const child = tracer.startSpan(
        "child",
        { links: [{ context: parent.spanContext() }] },
        trace.setSpan(ROOT_CONTEXT, parent)
      )
      child.end()
      parent.addEvent("exception", { "exception.type": "RuleViolation", "exception.message": "unresolved_reference" })
      parent.setStatus({ code: 2, message: "unresolved_reference" })
      parent.end()
      yield* Effect.promise(() => provider.forceFlush())
      yield* Effect.promise(() => provider.shutdown())
      const byType = (type: string) =>
        receiver
          .requests()
          .map((request, i) => [request.contentType, receiver.spans()[i]] as const)
          .filter(([contentType]) => contentType.startsWith(type))
          .flatMap(([, spans]) => spans ?? [])
      const json = byType("application/json")
      const protobuf = byType("application/x-protobuf")
      expect(protobuf.map((span) => span.name).sort()).toEqual(["child", "parent"])
      expect(protobuf).toEqual(json)
      const decodedParent = protobuf.find((span) => span.name === "parent")!
      expect(decodedParent.attributes).toEqual({
        text: "é ü",
        count: "200",
        negative: "-3",
        ratio: "0.25",
        on: "true",
        list: JSON.stringify({ values: [{ stringValue: "a" }, { stringValue: "b" }] })
      })
      const decodedChild = protobuf.find((span) => span.name === "child")!
      expect(decodedChild.parentSpanId).toBe(decodedParent.spanId)
      expect(decodedChild.links).toEqual([{ traceId: decodedParent.traceId, spanId: decodedParent.spanId }])
      expect(decodedParent.events).toEqual([
        {
          name: "exception",
          attributes: { "exception.type": "RuleViolation", "exception.message": "unresolved_reference" }
        }
      ])
      expect(decodedParent.status).toEqual({ code: 2, message: "unresolved_reference" })
      expect([decodedChild.events, decodedChild.status]).toEqual([[], { code: 0, message: "" }])
      expect(decodedParent.spanId).toMatch(/^[0-9a-f]{16}$/)
      expect(decodedParent.traceId).toMatch(/^[0-9a-f]{32}$/)
    })
  )
})

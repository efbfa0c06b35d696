import { Context, Effect, Layer } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { decodeTraceRequest } from "./OtlpProtobuf.js"

/** One span as an OTLP/HTTP request carries it (JSON or protobuf), with its attributes flattened to strings. */
export interface ReceivedSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly name: string
  readonly attributes: Readonly<Record<string, string>>
  /** The spans this one links to (a job's span to the request's that queued it). */
  readonly links: ReadonlyArray<{ readonly traceId: string; readonly spanId: string }>
  /** Its events (an `exception` of a failed span, a log line), with their attributes flattened to strings. */
  readonly events: ReadonlyArray<{ readonly name: string; readonly attributes: Readonly<Record<string, string>> }>
  /** 0 unset, 1 ok, 2 error, and the status message. */
  readonly status: { readonly code: number; readonly message: string }
}

/** An OTLP/HTTP receiver in the test process: it keeps every span POSTed to /v1/traces, in JSON or protobuf. */
export class OtlpReceiver extends Context.Service<
  OtlpReceiver,
  {
    readonly url: string
    readonly spans: () => ReadonlyArray<ReadonlyArray<ReceivedSpan>>
    readonly requests: () => ReadonlyArray<{ readonly path: string; readonly contentType: string }>
  }
>()("OtlpReceiver") {}

const attributeValue = (value: Record<string, unknown>): string => {
  const [only] = Object.values(value)
  return typeof only === "object" ? JSON.stringify(only) : String(only)
}

/** An attribute as OTLP/JSON writes it: its key and its value under its type (`{ stringValue: "..." }`). */
interface OtlpAttribute {
  readonly key: string | undefined
  readonly value: Record<string, unknown>
}

/** A span as OTLP/JSON writes it (the protobuf decoder gives the same shape). */
interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string | undefined
  readonly attributes?: ReadonlyArray<OtlpAttribute>
  readonly links?: ReadonlyArray<{ readonly traceId: string; readonly spanId: string }>
  readonly events?: ReadonlyArray<{
    readonly name: string | undefined
    readonly attributes?: ReadonlyArray<OtlpAttribute>
  }>
  readonly status?: { readonly code?: number | string; readonly message?: string | undefined }
}

/** An OTLP/HTTP trace request: spans by resource and instrumentation scope. */
interface OtlpTraceRequest {
  readonly resourceSpans?: ReadonlyArray<{
    readonly scopeSpans?: ReadonlyArray<{ readonly spans?: ReadonlyArray<OtlpSpan> }>
  }>
}

const attributesOf = (attributes: ReadonlyArray<OtlpAttribute> | undefined): Record<string, string> =>
  Object.fromEntries((attributes ?? []).map((a) => [a.key ?? "", attributeValue(a.value)]))

const spansOf = (body: OtlpTraceRequest): Array<ReceivedSpan> =>
  (body.resourceSpans ?? []).flatMap((resource) =>
    (resource.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId === "" ? undefined : span.parentSpanId,
        name: span.name ?? "",
        attributes: attributesOf(span.attributes),
        links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId })),
        events: (span.events ?? []).map((event) => ({
          name: event.name ?? "",
          attributes: attributesOf(event.attributes)
        })),
        status: { code: Number(span.status?.code ?? 0), message: span.status?.message ?? "" }
      }))
    )
  )

export const OtlpReceiverLive = Layer.effect(
  OtlpReceiver,
  Effect.gen(function* () {
    const batches: Array<Array<ReceivedSpan>> = []
    const requests: Array<{ path: string; contentType: string }> = []
    const server = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        requests.push({ path: request.url ?? "", contentType: request.headers["content-type"] ?? "" })
        const body = Buffer.concat(chunks)
        const protobuf = request.headers["content-type"] === "application/x-protobuf"
        if (request.url === "/v1/traces")
          batches.push(
            spansOf(protobuf ? decodeTraceRequest(body) : (JSON.parse(body.toString("utf8")) as OtlpTraceRequest))
          )
        // An empty ExportTraceServiceResponse: "{}" in JSON, no bytes in protobuf.
        if (protobuf) response.writeHead(200, { "content-type": "application/x-protobuf" }).end()
        else response.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    yield* Effect.acquireRelease(
      Effect.callback<void>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.void))
      }),
      () =>
        Effect.callback<void>((resume) => {
          server.close(() => resume(Effect.void))
        })
    )
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      spans: () => batches,
      requests: () => requests
    }
  })
)

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

const attributesOf = (attributes: any): Record<string, string> =>
  Object.fromEntries((attributes ?? []).map((a: any) => [a.key, attributeValue(a.value)]))

const spansOf = (body: any): Array<ReceivedSpan> =>
  (body.resourceSpans ?? []).flatMap((resource: any) =>
    (resource.scopeSpans ?? []).flatMap((scope: any) =>
      (scope.spans ?? []).map((span: any) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId === "" ? undefined : span.parentSpanId,
        name: span.name,
        attributes: attributesOf(span.attributes),
        links: (span.links ?? []).map((link: any) => ({ traceId: link.traceId, spanId: link.spanId })),
        events: (span.events ?? []).map((event: any) => ({
          name: event.name,
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
          batches.push(spansOf(protobuf ? decodeTraceRequest(body) : JSON.parse(body.toString("utf8"))))
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

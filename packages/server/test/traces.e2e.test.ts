import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import sharp from "sharp"
import { at, jobOf, record, str } from "./Json.js"
import { OtlpReceiver, OtlpReceiverLive, type ReceivedSpan } from "./OtlpReceiver.js"
import { byRouter, routerOnRequest } from "./SameAnswer.js"
import { call, freshKey, TestServer, TestServerWith, testDatabase, uploadMedia, waitJob } from "./TestServer.js"

const scopes = ["catalog:read", "catalog:write", "media:read", "media:write"]

/**
 * A server exporting every span to the receiver, in batches sent every 100 ms, in OTLP/HTTP's default
 * encoding (protobuf) unless `env` says otherwise. Its sampler is the default one (parent-based, always on
 * at the root): a caller's `traceparent` decides whether its request is kept.
 */
const TracedServer = (env: Record<string, string> = {}) =>
  Layer.unwrap(
    Effect.map(OtlpReceiver, (receiver) =>
      TestServerWith(
        {},
        {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_TRACES_SAMPLER: "parentbased_always_on",
          OTEL_BSP_SCHEDULE_DELAY: "100",
          OTEL_SERVICE_NAME: "catalog-sync-test",
          ...env
        }
      )
    )
  ).pipe(Layer.provideMerge(OtlpReceiverLive))

/** Waits until the spans received satisfy `found`, and returns what it found. */
const eventually = <A>(found: (spans: ReadonlyArray<ReceivedSpan>) => A | undefined) =>
  Effect.gen(function* () {
    const receiver = yield* OtlpReceiver
    for (let i = 0; i < 100; i++) {
      const result = found(receiver.spans().flat())
      if (result !== undefined) return result
      yield* Effect.sleep("100 millis")
    }
    return yield* Effect.die(new Error("the spans expected never arrived"))
  })

/** Whether `span` descends from `ancestor` within `spans`. */
const descendsFrom = (spans: ReadonlyArray<ReceivedSpan>, span: ReceivedSpan, ancestor: ReceivedSpan): boolean => {
  let parent = span.parentSpanId
  for (let depth = 0; parent !== undefined && depth < 50; depth++) {
    if (parent === ancestor.spanId) return true
    parent = spans.find((s) => s.spanId === parent)?.parentSpanId
  }
  return false
}

const hex = (length: number) => Array.from({ length }, () => Math.floor(Math.random() * 16).toString(16)).join("")

const structure =
  "a write is one trace continuing the caller's: request span, authentication, use case, idempotency claim, transaction; no secret in any attribute"

/** A write's trace, checked in either encoding of OTLP/HTTP (`contentType`: what the receiver got). */
const aWriteIsOneTrace = (contentType: string) =>
  Effect.gen(function* () {
    const { url, tenant } = yield* TestServer
    const token = yield* (yield* tenant()).key(scopes)
    const traceId = hex(32)
    const callerSpan = hex(16)
    const privateName = `Private Name ${hex(8)}`
    const key = freshKey()
    const reply = yield* call(url, "POST", "/categories/upsert", {
      token,
      idempotencyKey: key,
      body: { external_id: "secret-external-id", name: privateName },
      headers: { traceparent: `00-${traceId}-${callerSpan}-01` }
    })
    expect(reply.status).toBe(200)
    const requestId = reply.headers.get("x-request-id")
    const trace = yield* eventually((spans) => {
      const inTrace = spans.filter((span) => span.traceId === traceId)
      const root = inTrace.find((span) => span.name === "POST /api/v1/categories/upsert")
      const children = ["authenticate", "use case", "idempotency.claim", "sql.transaction"].map((name) =>
        inTrace.find((span) => span.name === name)
      )
      return root !== undefined && children.every((child) => child !== undefined)
        ? { spans: inTrace, root, children: children as Array<ReceivedSpan> }
        : undefined
    })
    expect(trace.root.parentSpanId).toBe(callerSpan)
    expect(trace.root.attributes).toMatchObject({
      "http.route": "/api/v1/categories/upsert",
      "http.request.method": "POST",
      "http.response.status_code": "200",
      request_id: requestId
    })
    for (const child of trace.children) expect(descendsFrom(trace.spans, child, trace.root)).toBe(true)
    // The claim and the transaction are the use case's.
    const [, useCase, claim, transaction] = trace.children
    expect(descendsFrom(trace.spans, claim!, useCase!)).toBe(true)
    expect(descendsFrom(trace.spans, transaction!, useCase!)).toBe(true)
    const secret = token.split("_").slice(2).join("_")
    const everything = JSON.stringify((yield* OtlpReceiver).spans())
    for (const value of [token, secret, privateName, "secret-external-id", key]) expect(everything).not.toContain(value)
    // Sent in the encoding the server was set to, every batch: the receiver read them as such.
    const received = (yield* OtlpReceiver).requests()
    expect([...new Set(received.map((request) => `${request.path} ${request.contentType}`))]).toEqual([
      `/v1/traces ${contentType}`
    ])
  })

layer(TracedServer({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }), { excludeTestServices: true, timeout: 60_000 })(
  "traces over OTLP/HTTP in JSON",
  (it) => {
    it.effect(structure, () => aWriteIsOneTrace("application/json"))
  }
)

/** A span and the spans under it, as a tree of what they record; ids, times and the request id aside. */
interface Shape {
  readonly name: string
  readonly attributes: Readonly<Record<string, string>>
  readonly status: number
  readonly events: ReadonlyArray<string>
  readonly children: ReadonlyArray<Shape>
}

const shapeOf = (spans: ReadonlyArray<ReceivedSpan>, span: ReceivedSpan): Shape => {
  const { request_id, ...attributes } = span.attributes
  return {
    name: span.name,
    attributes: { ...attributes, ...(request_id === undefined ? {} : { request_id: "(each its own)" }) },
    status: span.status.code,
    events: span.events.map((event) => event.name),
    children: spans
      .filter((child) => child.parentSpanId === span.spanId)
      .map((child) => shapeOf(spans, child))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
  }
}

const { fastAnswered, layer: answering } = routerOnRequest()

// The default encoding, protobuf (OpenTelemetry's default for OTLP/HTTP): every case.
layer(TracedServer().pipe(Layer.provide(answering)), { excludeTestServices: true, timeout: 60_000 })(
  "traces over OTLP/HTTP",
  (it) => {
    it.effect(structure, () => aWriteIsOneTrace("application/x-protobuf"))

    it.effect(
      "a fast answer is traced as its route is: the same spans, with the same names, attributes and parents",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const token = yield* (yield* tenant()).key(scopes)
          const category = record(
            (yield* call(url, "POST", "/categories/upsert", {
              token,
              body: { external_id: "traced", name: "Traced" }
            })).body,
            "record"
          )
          const cursor = str((yield* call(url, "GET", "/changes", { token })).body, "next_cursor")
          fastAnswered.clear()
          for (const { path, route, key } of [
            { path: `/categories/${category.id}`, route: "/api/v1/categories/:id", key: token },
            { path: `/changes?cursor=${cursor}`, route: "/api/v1/changes", key: token },
            { path: "/changes?cursor=c2_0&limit=1", route: "/api/v1/changes", key: token },
            { path: `/categories/${category.id}`, route: "/api/v1/categories/:id", key: undefined }
          ]) {
            const traced = (headers: Record<string, string>) =>
              Effect.gen(function* () {
                const traceId = hex(32)
                const reply = yield* call(url, "GET", path, {
                  ...(key === undefined ? {} : { token: key }),
                  headers: { traceparent: `00-${traceId}-${hex(16)}-01`, ...headers }
                })
                return { traceId, status: reply.status }
              })
            const bothTraced = Effect.gen(function* () {
              const fast = yield* traced({})
              const routed = yield* traced(byRouter)
              expect(fast.status).toBe(routed.status)
              // A request's span ends after every span inside it: once both are received, so is everything under them.
              return yield* eventually((spans) => {
                const trees = [fast.traceId, routed.traceId].map((traceId) => {
                  const inTrace = spans.filter((span) => span.traceId === traceId)
                  const root = inTrace.find((span) => span.name === `GET ${route}`)
                  return root === undefined ? undefined : shapeOf(inTrace, root)
                })
                return trees.every((tree) => tree !== undefined) ? trees : undefined
              })
            })
            // The keys' cache is the server's state, not the path's: on PostgreSQL the accounts' version moves
            // with each ping of its listening connection, so one of the two may look its key up again. A pair
            // is asked again (up to three times) until both found the key alike; a path that traces otherwise
            // differs every time.
            const keyLookups = (tree: Shape): number =>
              (tree.name === "Accounts.findKey" ? 1 : 0) + tree.children.reduce((n, child) => n + keyLookups(child), 0)
            // Records read by id are kept in memory on SQLite until the next commit: asked once untraced first,
            // both traced answers find it kept, as any repeated read does.
            yield* call(url, "GET", path, key === undefined ? {} : { token: key })
            let [fastTrace, routedTrace] = yield* bothTraced
            for (let attempt = 1; attempt < 3 && keyLookups(fastTrace!) !== keyLookups(routedTrace!); attempt++)
              [fastTrace, routedTrace] = yield* bothTraced
            expect(fastTrace!.children.map((child) => child.name)).toContain("use case")
            expect(fastTrace).toEqual(routedTrace)
          }
          // Traced requests were offered their fast answers (an envelope that turned them off never asks).
          expect([...fastAnswered]).toEqual(expect.arrayContaining(["categories.get", "changes.changes"]))
        })
    )

    it.effect("an idle worker's polls are not traces: no job claim reaches the collector, only jobs that run", () =>
      Effect.gen(function* () {
        // The workers poll every 250 ms by default: a second is several polls that find nothing.
        yield* Effect.sleep("1200 millis")
        const spans = (yield* OtlpReceiver).spans().flat()
        expect(spans.length).toBeGreaterThan(0)
        expect(spans.filter((span) => span.name === "JobStore.claim").map((span) => span.name)).toEqual([])
      })
    )

    it.effect(
      "an import job and an image are traces of their own, with their transactions and the image's processing inside, each linked to the request that queued it",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const token = yield* (yield* tenant()).key(scopes)
          const submitted = yield* call(url, "POST", "/imports", {
            token,
            body: { records: [{ resource: "categories", body: { external_id: "i-1", name: "One" } }] }
          })
          const importId = str(submitted.body, "job", "id")
          const importRequest = submitted.headers.get("x-request-id")
          yield* waitJob(url, token, importId)
          const png = yield* Effect.promise(() =>
            sharp({ create: { width: 8, height: 8, channels: 3, background: "#336699" } })
              .png()
              .toBuffer()
          )
          const uploaded = yield* uploadMedia(url, token, { external_id: "m", name: "M", purpose: "catalog" }, png)
          const mediaId = jobOf(uploaded.body).id
          const mediaRequest = uploaded.headers.get("x-request-id")
          yield* waitJob(url, token, mediaId)
          const jobTrace = (name: string, id: string, child: string) =>
            eventually((spans) => {
              const root = spans.find((span) => span.name === name && span.attributes["job.id"] === id)
              const inside =
                root === undefined
                  ? undefined
                  : spans.find(
                      (span) => span.traceId === root.traceId && span.name === child && descendsFrom(spans, span, root)
                    )
              return root !== undefined && inside !== undefined ? root : undefined
            })
          const importRoot = yield* jobTrace("job import", importId, "sql.transaction")
          expect(importRoot.parentSpanId).toBeUndefined()
          expect(importRoot.attributes).toMatchObject({ "job.kind": "import", "job.run": "1" })
          const mediaRoot = yield* jobTrace("job media", mediaId, "image.process")
          expect(mediaRoot.parentSpanId).toBeUndefined()
          expect(mediaRoot.traceId).not.toBe(importRoot.traceId)
          // Each job's span links to a span of the request that queued it: that request's trace and span ids.
          const queuedBy = (requestId: string | null) =>
            eventually((spans) => {
              const request = spans.find(
                (span) => span.parentSpanId === undefined && span.attributes.request_id === requestId
              )
              return request === undefined
                ? undefined
                : { spans: spans.filter((span) => span.traceId === request.traceId), request }
            })
          for (const [root, requestId, reply] of [
            [importRoot, importRequest, submitted],
            [mediaRoot, mediaRequest, uploaded]
          ] as const) {
            expect(requestId).toBeTruthy()
            const { request, spans } = yield* queuedBy(requestId)
            expect(root.links).toHaveLength(1)
            const [link] = root.links
            expect(link!.traceId).toBe(request.traceId)
            expect(link!.traceId).not.toBe(root.traceId)
            const linked = spans.find((span) => span.spanId === link!.spanId)
            // The span in which the job was queued: the request's transaction that inserted it.
            expect(linked?.name).toBe("sql.transaction")
            expect(descendsFrom(spans, linked!, request)).toBe(true)
            // The link is the server's own: the job the API returns carries no trace context.
            expect(JSON.stringify(reply.body)).not.toContain(link!.spanId)
            expect(JSON.stringify(reply.body)).not.toContain(link!.traceId)
          }
        })
    )

    it.effect(
      "a traced authentication failure's spans hold no client address (its rate-limit bucket by kind only)",
      () =>
        Effect.gen(function* () {
          const { url } = yield* TestServer
          const traceId = hex(32)
          const refused = yield* call(url, "GET", "/me", {
            token: `csk_${hex(24)}_not-a-secret`,
            headers: { traceparent: `00-${traceId}-${hex(16)}-01` }
          })
          expect(at(refused.body, "error", "code")).toBe("invalid_credentials")
          // On PostgreSQL the failure is counted in a statement of its own span (SQLite counts in memory).
          const spans = yield* eventually((all) => {
            const inTrace = all.filter((span) => span.traceId === traceId)
            const names = new Set(inTrace.map((span) => span.name))
            return names.has("GET /api/v1/me") && (testDatabase === "sqlite" || names.has("RateLimiter.consume"))
              ? inTrace
              : undefined
          })
          if (testDatabase === "postgres") {
            const counted = spans.filter((span) => span.name === "RateLimiter.consume")
            expect(counted.map((span) => span.attributes.bucket).sort()).toEqual(["auth-failures", "auth-failures"])
          }
          // The client is on loopback, as the database is: its statements' `server.address` is the database's.
          const everything = JSON.stringify(
            spans.map(({ attributes: { "server.address": _database, ...attributes }, ...span }) => ({
              ...span,
              attributes
            }))
          )
          for (const address of ["127.0.0.1", "::1", "auth-failures:"]) expect(everything).not.toContain(address)
        })
    )

    it.effect(
      "a failure is recorded by its code and tag: no exception, status or event of any span carries a value the client sent",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const token = yield* (yield* tenant()).key(scopes)
          const traced = (traceId: string) => ({ traceparent: `00-${traceId}-${hex(16)}-01` })
          const [unresolved, malformed] = [hex(32), hex(32)]
          const reference = yield* call(url, "POST", "/products/upsert", {
            token,
            body: { external_id: "p", name: "P", category_ids: [{ external_id: "SECRETREF-customer-4711" }] },
            headers: traced(unresolved)
          })
          expect(at(reference.body, "error", "code")).toBe("unresolved_reference")
          // The parser's message quotes the text around the error.
          const json = yield* call(url, "POST", "/categories/upsert", {
            token,
            raw: '{"external_id": SECRETJSON-customer-4711}',
            headers: { "content-type": "application/json", ...traced(malformed) }
          })
          expect(at(json.body, "error", "code")).toBe("malformed_json")
          const failed = yield* eventually((spans) => {
            const found = spans.filter(
              (span) => (span.traceId === unresolved || span.traceId === malformed) && span.status.code === 2
            )
            return new Set(found.map((span) => span.traceId)).size === 2 ? found : undefined
          })
          const exceptions = failed.flatMap((span) => span.events.filter((event) => event.name === "exception"))
          expect(exceptions.length).toBeGreaterThanOrEqual(failed.length)
          for (const exception of exceptions) expect(exception.attributes["exception.message"]).toMatch(/^[a-z_]+$/)
          expect(exceptions.map((exception) => exception.attributes["exception.message"])).toContain(
            "unresolved_reference"
          )
          expect(
            failed
              .filter((span) => span.traceId === unresolved)
              .flatMap((span) => span.events.map((event) => event.attributes["exception.type"]))
          ).toContain("RuleViolation")
          const everything = JSON.stringify((yield* OtlpReceiver).spans())
          expect(everything).not.toContain("SECRETREF")
          expect(everything).not.toContain("SECRETJSON")
        })
    )

    it.effect(
      "sampling is decided once per request: a caller's unsampled traceparent (flags 00) exports no span of its request and its import job links to nothing; flags 01 exports the whole tree and the link",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const token = yield* (yield* tenant()).key(scopes)
          const importWith = (flags: string) =>
            Effect.gen(function* () {
              const traceId = hex(32)
              const callerSpan = hex(16)
              const submitted = yield* call(url, "POST", "/imports", {
                token,
                headers: { traceparent: `00-${traceId}-${callerSpan}-${flags}` },
                body: { records: [{ resource: "categories", body: { external_id: `s-${flags}`, name: "S" } }] }
              })
              expect(submitted.status).toBe(202)
              const id = str(submitted.body, "job", "id")
              yield* waitJob(url, token, id)
              // The job's run is a trace of its own, sampled at its root whatever its request was.
              const job = yield* eventually((spans) =>
                spans.find((span) => span.name === "job import" && span.attributes["job.id"] === id)
              )
              return { traceId, callerSpan, job }
            })
          const unsampled = yield* importWith("00")
          // The job's span ended after every span of its request would have: the batches would hold them by now.
          const receiver = yield* OtlpReceiver
          expect(
            receiver
              .spans()
              .flat()
              .filter((span) => span.traceId === unsampled.traceId)
          ).toEqual([])
          expect(unsampled.job.links).toEqual([])

          const sampled = yield* importWith("01")
          const tree = yield* eventually((spans) => {
            const inTrace = spans.filter((span) => span.traceId === sampled.traceId)
            const root = inTrace.find((span) => span.name === "POST /api/v1/imports")
            const names = new Set(inTrace.map((span) => span.name))
            return root !== undefined &&
              ["authenticate", "use case", "sql.transaction"].every((name) => names.has(name))
              ? { root, inTrace }
              : undefined
          })
          expect(tree.root.parentSpanId).toBe(sampled.callerSpan)
          expect(tree.root.attributes["http.response.status_code"]).toBe("202")
          for (const span of tree.inTrace)
            if (span !== tree.root) expect(descendsFrom(tree.inTrace, span, tree.root)).toBe(true)
          expect(sampled.job.links).toHaveLength(1)
          expect(sampled.job.links[0]!.traceId).toBe(sampled.traceId)
          expect(tree.inTrace.map((span) => span.spanId)).toContain(sampled.job.links[0]!.spanId)
        })
    )

    it.effect(
      "a retried job's new run links to the request that retried it (its transaction), not to the first one; retried by an unsampled request it links to nothing",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const token = yield* (yield* tenant()).key(scopes)
          // A record the schema refuses: the import completes with a failed record, which a retry runs again.
          const submitted = yield* call(url, "POST", "/imports", {
            token,
            body: { records: [{ resource: "categories", body: { external_id: "r-1", name: "R", price: "1" } }] }
          })
          const id = str(submitted.body, "job", "id")
          yield* waitJob(url, token, id)
          const runSpan = (run: string) =>
            eventually((spans) =>
              spans.find(
                (span) =>
                  span.name === "job import" && span.attributes["job.id"] === id && span.attributes["job.run"] === run
              )
            )
          const first = yield* runSpan("1")
          const retryWith = (flags: string, path: string) =>
            Effect.gen(function* () {
              const traceId = hex(32)
              const retried = yield* call(url, "POST", path, {
                token,
                idempotencyKey: freshKey(),
                headers: { traceparent: `00-${traceId}-${hex(16)}-${flags}` }
              })
              expect(retried.status).toBe(202)
              yield* waitJob(url, token, id)
              return traceId
            })
          const retryTrace = yield* retryWith("01", `/jobs/${id}/retry`)
          const second = yield* runSpan("2")
          expect(second.links).toHaveLength(1)
          expect(second.links[0]!.traceId).toBe(retryTrace)
          expect(second.links[0]!.traceId).not.toBe(first.links[0]!.traceId)
          const linked = yield* eventually((spans) => spans.find((span) => span.spanId === second.links[0]!.spanId))
          expect(linked.name).toBe("sql.transaction")
          yield* retryWith("00", `/imports/${id}/retry`)
          expect((yield* runSpan("3")).links).toEqual([])
        })
    )
  }
)

import { expect, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { request as httpRequest } from "node:http"
import { connect } from "node:net"
import { rawConnection, until } from "./EdgeClients.js"
import { type LoggedLine, TestServer, TestServerWith } from "./TestServer.js"

/** GET /health over a new connection: its status and how long the answer took (ms). */
const timedHealth = (url: string) =>
  Effect.callback<{ readonly status: number; readonly millis: number; readonly started: number }>((resume) => {
    const started = Date.now()
    const req = httpRequest(`${url}/health`, { agent: false, headers: { connection: "close" } }, (res) => {
      res.resume()
      res.on("end", () =>
        resume(Effect.succeed({ status: res.statusCode ?? 0, millis: Date.now() - started, started }))
      )
    })
    req.on("error", () => resume(Effect.succeed({ status: 0, millis: Date.now() - started, started })))
    req.end()
  })

/**
 * A connection that pipelines `requests` and reads nothing until `resume`; it counts what it then reads
 * (without keeping it) and sees its close only once it reads.
 */
const pausedReader = (url: string, requests: string) =>
  Effect.acquireRelease(
    Effect.callback<{
      readonly resume: () => void
      readonly bytes: () => number
      readonly closed: () => boolean
      readonly destroy: () => void
    }>((done) => {
      let bytes = 0
      let closed = false
      const socket = connect({ port: Number(new URL(url).port), host: "127.0.0.1" }, () => {
        socket.pause()
        socket.write(requests)
        done(
          Effect.succeed({
            resume: () => void socket.resume(),
            bytes: () => bytes,
            closed: () => closed,
            destroy: () => void socket.destroy()
          })
        )
      })
      socket.on("data", (chunk: Buffer) => void (bytes += chunk.length))
      socket.on("error", () => undefined)
      socket.on("close", () => void (closed = true))
    }),
    (reader) => Effect.sync(reader.destroy)
  )

const logs: Array<LoggedLine> = []
const sendTimeoutSeconds = 5
const connections = 50
/** 40 answers of ~400 KB: four times what the loopback's buffers take of a client that reads nothing. */
const pipelined = 40
const openapi = "GET /api/v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n"

layer(TestServerWith({}, { HTTP_SEND_TIMEOUT_SECONDS: String(sendTimeoutSeconds) }, { logs }), {
  excludeTestServices: true,
  timeout: 60_000
})("clients that pipeline requests and read nothing", (it) => {
  it.effect(
    `${connections} connections pipelining ${pipelined} answers each and reading none are closed within the send time-out; /health answers meanwhile`,
    () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const size = (yield* Effect.promise(() => fetch(`${url}/api/v1/openapi.json`).then((r) => r.arrayBuffer())))
          .byteLength
        const answered = () =>
          logs.filter((l) => l.message === "request" && l.annotations.path === "/api/v1/openapi.json").length
        const before = answered()
        const probes: Array<{ readonly status: number; readonly millis: number; readonly started: number }> = []
        const probing = yield* Effect.forkChild(
          Effect.repeat(
            Effect.tap(
              Effect.map(timedHealth(url), (probe) => void probes.push(probe)),
              Effect.sleep("100 millis")
            ),
            { times: 100 }
          )
        )
        const readers = yield* Effect.all(
          Array.from({ length: connections }, () => pausedReader(url, openapi.repeat(pipelined))),
          { concurrency: "unbounded" }
        )
        // A paused client does not see its connection close: it reads again just before twice the time-out,
        // which node's own time-out held such connections at least. The margin past the time-out is for the
        // answers the kernel takes first (seconds on a loaded machine) and checks every eighth of it.
        yield* Effect.sleep(`${sendTimeoutSeconds * 2_000 - 300} millis`)
        yield* Fiber.interrupt(probing)
        for (const reader of readers) reader.resume()
        const allClosed = yield* until(() => readers.every((r) => r.closed()), 5_000)
        const received = readers.map((r) => r.bytes())
        const handled = answered() - before
        console.log(
          `${connections} pipelining readers that read nothing (send time-out ${sendTimeoutSeconds} s): ` +
            `at most ${Math.max(...received)} of ${pipelined * size} bytes each reached its client; ` +
            `${handled} of ${connections * pipelined} requests handled; /health: ${probes.length} probes, slowest ${Math.max(...probes.map((p) => p.millis))} ms`
        )
        expect(allClosed).toBe(true)
        // Closed before the client read again: a client that reads gets every answer (the test below).
        expect(received.every((bytes) => bytes < pipelined * size)).toBe(true)
        // A connection's next request waits for the answer before it to leave: those behind an answer
        // nobody reads are never worked on, nor held in memory.
        expect(handled).toBeLessThan((connections * pipelined) / 2)
        // /health answers throughout, also while the answers the kernel takes at once (~4 MB a connection on
        // the loopback, 200 MB in all) are written: requests start a few per turn of the event loop, and a
        // check at once. 0.2-0.3 s on a quiet machine; the bound leaves room for a suite running beside it.
        expect(probes.length).toBeGreaterThan(20)
        expect(probes.filter((p) => p.status !== 200)).toEqual([])
        expect(probes.filter((p) => p.millis >= 2_000)).toEqual([])
      }),
    { timeout: 30_000 }
  )

  it.effect("a client that reads its pipelined answers gets all of them, in order", () =>
    Effect.gen(function* () {
      const { url } = yield* TestServer
      const reader = yield* rawConnection(url)
      reader.socket.write(`${openapi.repeat(pipelined - 1)}GET /health HTTP/1.1\r\nHost: x\r\n\r\n`)
      const count = () => reader.received().split("HTTP/1.1 200 OK").length - 1
      expect(yield* until(() => count() === pipelined, 10_000)).toBe(true)
      expect(reader.received().lastIndexOf("HTTP/1.1 200 OK")).toBeGreaterThan(reader.received().lastIndexOf("openapi"))
      expect(reader.closed()).toBe(false)
    })
  )
})

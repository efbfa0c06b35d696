import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { Socket } from "node:net"
import { endWithError } from "./UnparsableRequests.js"

interface Watched {
  readonly request: IncomingMessage
  readonly response: ServerResponse
  readonly socket: Socket
  /** When the body began, moved on by the time the server itself held its reading back. */
  since: number
  readonly bytesBefore: number
}

/**
 * Cuts off a request body that arrives slower than `minBytesPerSecond` on average, once `graceMillis`
 * have passed since it began: its bytes must reach `minBytesPerSecond × (elapsed − grace)`. Without it a
 * body sent a byte a second holds its connection until the request time-out (120 s by default), and a
 * thousand of them hold every connection the server takes. A body the server is not reading yet (its
 * handler is busy, or holds it back) is not the client's doing: that time does not count. The client gets
 * `408 request_timeout` (or, once an answer was sent, the connection is closed).
 * Requests without a body are never watched; the others are checked every `checkMillis` by one timer,
 * which runs only while there are some, and dropped at the first check after their body is complete.
 */
export const cutOffSlowBodies = (
  server: Server,
  minBytesPerSecond: number,
  graceMillis: number,
  checkMillis: number
) => {
  if (minBytesPerSecond <= 0) return server
  const watched = new Set<Watched>()
  let timer: ReturnType<typeof setInterval> | undefined
  const check = () => {
    const now = Date.now()
    for (const body of watched) {
      const { request, response, socket } = body
      if (request.complete || socket.destroyed) {
        watched.delete(body)
        continue
      }
      // Bytes received but not read yet: the server is behind, not the client.
      if (request.readableLength > 0) {
        body.since += checkMillis
        continue
      }
      const received = socket.bytesRead - body.bytesBefore
      if (received >= (minBytesPerSecond * (now - body.since - graceMillis)) / 1000) continue
      watched.delete(body)
      if (response.headersSent || !socket.writable) socket.destroy()
      else
        endWithError(socket, {
          status: 408,
          reason: "Request Timeout",
          code: "request_timeout",
          message: `the body arrived slower than ${minBytesPerSecond} bytes a second; the connection is closed`
        }).once("finish", () => socket.destroy())
    }
    if (watched.size === 0) {
      clearInterval(timer)
      timer = undefined
    }
  }
  return server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    const length = request.headers["content-length"]
    if ((length === undefined || length === "0") && request.headers["transfer-encoding"] === undefined) return
    watched.add({
      request,
      response,
      socket: request.socket,
      since: Date.now(),
      bytesBefore: request.socket.bytesRead
    })
    if (timer === undefined) {
      timer = setInterval(check, checkMillis)
      timer.unref()
    }
  })
}

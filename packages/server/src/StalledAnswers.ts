import type { Server, ServerResponse } from "node:http"
import type { Socket } from "node:net"

interface Watched {
  /** Bytes the kernel took, as last seen: the socket's written bytes less those it still holds. */
  sent: number
  /** What libuv still holds of the write under way (it shrinks as a large chunk goes out piecemeal). */
  queued: number
  /** Since when the connection has had bytes to send that did not move, as seen by a check. */
  since: number | undefined
}

/** The bytes of a write under way that libuv has not handed to the kernel yet (as node's own time-out reads). */
const writeQueueSize = (socket: Socket) =>
  (socket as Socket & { _handle?: { writeQueueSize?: number } | null })._handle?.writeQueueSize ?? 0

/**
 * Closes a connection whose answers make no progress for `millis`: a client that stops reading holds the
 * rest of its answer in the server's memory (a large report to a hundred such clients is hundreds of MB)
 * for as long as it keeps the connection. Progress is bytes taken by the kernel, whatever the client sent
 * meanwhile (pipelined requests) and however many answers are queued. Node's socket time-out is not
 * enough: each pipelined answer written restarts it, and it is put off once more when the last write
 * moved a little (a client reading nothing was held twice the time-out, or longer). One timer checks every
 * connection every eighth of `millis` (at most 1 s), only while there are some: a stalled one is closed
 * between `millis` and `millis` + two checks after its bytes stopped moving, never sooner. A connection with
 * nothing to send (a handler still at work, a body still arriving, which the request time-outs watch) is
 * not watched. Node's socket time-out stays for connections that do nothing at all: any that times out
 * with no answer begun is left alone, any other closed, as Node does without a listener.
 */
export const cutOffStalledAnswers = (server: Server, millis: number): Server => {
  const checkMillis = Math.max(50, Math.min(1000, Math.round(millis / 8)))
  const open = new Map<Socket, Watched>()
  let timer: ReturnType<typeof setInterval> | undefined
  const check = () => {
    const now = Date.now()
    for (const [socket, watched] of open) {
      if (socket.destroyed) {
        open.delete(socket)
        continue
      }
      if (socket.writableLength === 0) {
        watched.since = undefined
        continue
      }
      const sent = socket.bytesWritten - socket.writableLength
      const queued = writeQueueSize(socket)
      if (watched.since === undefined || sent !== watched.sent || queued !== watched.queued) {
        watched.sent = sent
        watched.queued = queued
        watched.since = now
      } else if (now - watched.since >= millis) {
        open.delete(socket)
        socket.destroy()
      }
    }
    if (open.size === 0) {
      clearInterval(timer)
      timer = undefined
    }
  }
  server.on("connection", (socket: Socket) => {
    open.set(socket, { sent: 0, queued: 0, since: undefined })
    socket.once("close", () => open.delete(socket))
    if (timer === undefined) {
      timer = setInterval(check, checkMillis)
      timer.unref()
    }
  })
  server.timeout = millis
  return server.on("timeout", (socket: Socket) => {
    const answer = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage
    if (answer != null && !answer.headersSent) return
    socket.destroy()
  })
}

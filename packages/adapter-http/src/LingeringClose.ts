import type { IncomingMessage } from "node:http"
import type { Socket } from "node:net"

/** How long the server goes on reading what the client still sends of a refused body, at most. */
export const lingerMillis = 10_000

/** How long it waits for the client's next bytes: a client that has stopped sending has no send to fail. */
export const lingerIdleMillis = 2_000

/** How much it reads, at most: past this the client is sending far more than a refused body. */
export const lingerBytes = 64 * 1024 * 1024

/**
 * Reads and discards the rest of a body whose answer is already given, within the lingering close's
 * bounds: the connection goes on to its next request once the body ends, and is closed if the client
 * pauses `lingerIdleMillis`, is still sending after `lingerMillis` or sends more than `maxBytes` (a body
 * trickling in a byte a second would otherwise hold the connection until the request time-out).
 */
export const discardRest = (incoming: IncomingMessage, maxBytes: number) => {
  const cut = () => incoming.socket?.destroy()
  const whole = setTimeout(cut, lingerMillis)
  const idle = setTimeout(cut, lingerIdleMillis)
  whole.unref()
  idle.unref()
  let discarded = 0
  incoming.on("data", (chunk: Buffer) => {
    discarded += chunk.length
    if (discarded > maxBytes) cut()
    else idle.refresh()
  })
  const done = () => {
    clearTimeout(whole)
    clearTimeout(idle)
  }
  incoming.once("end", done)
  incoming.once("close", done)
  incoming.resume()
}

/** Connections answered with a close: nothing more is served on them. */
const closing = new WeakSet<Socket>()

/**
 * Whether the request came on a connection already answered with `connection: close` (a 413 lingering):
 * a client may pipeline its next request right behind the refused body, and Node's parser hands it to the
 * server before the body's end closes the connection. HTTP/1.1 forbids serving it, and its answer could
 * not be sent: a write it ran would be done with nobody told.
 */
export const arrivedAfterClose = (incoming: IncomingMessage) =>
  incoming.socket !== null && (closing.has(incoming.socket) || incoming.socket.writableEnded)

/**
 * Closes the request's connection after its answer without cutting off a client that is still sending
 * the body (a 413 answered from Content-Length alone, before any of it arrived). Node closes such a
 * connection as soon as the answer is written; the body's bytes that then arrive make the kernel reset
 * it, and a client still writing (curl below its 1 MiB `Expect` threshold, say) fails with a send error
 * instead of reading the answer. So, as web servers' lingering close does: the answer is written, the
 * sending side shut, and the rest of the body read and discarded until it ends, the client closes or
 * pauses `lingerIdleMillis`, `lingerMillis` pass or `lingerBytes` arrive; then the connection is closed.
 */
export const lingerThenClose = (incoming: IncomingMessage) => {
  const socket = incoming.socket as (Socket & { destroySoon?: () => void }) | null
  if (socket === null || socket.destroyed) return
  closing.add(socket)
  let discarded = 0
  // Set once the answer is written and the lingering has begun.
  let idle: ReturnType<typeof setTimeout> | undefined
  const close = () => socket.destroy()
  const waitIdle = () => {
    clearTimeout(idle)
    idle = setTimeout(close, lingerIdleMillis)
    idle.unref()
  }
  if (!incoming.readableEnded) {
    incoming.on("data", (chunk: Buffer) => {
      discarded += chunk.length
      if (discarded > lingerBytes) close()
      else if (idle !== undefined) waitIdle()
    })
    incoming.once("end", () => {
      if (idle !== undefined) close()
    })
    incoming.resume()
  }
  // What Node's server calls once an answer that closes its connection is written.
  if (typeof socket.destroySoon !== "function") return
  socket.destroySoon = () => {
    if (socket.writable) socket.end()
    const linger = () => {
      if (incoming.readableEnded || socket.destroyed) return close()
      const whole = setTimeout(close, lingerMillis)
      whole.unref()
      waitIdle()
      socket.once("close", () => {
        clearTimeout(whole)
        clearTimeout(idle)
      })
    }
    if (socket.writableFinished) linger()
    else socket.once("finish", linger)
  }
}

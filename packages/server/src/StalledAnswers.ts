import type { Server, ServerResponse } from "node:http"
import type { Socket } from "node:net"

/**
 * Closes a connection whose answer makes no progress for `millis`: a client that stops reading holds the
 * rest of its answer in the server's memory (a large report to a hundred such clients is hundreds of MB)
 * for as long as it keeps the connection. Node's socket time-out counts a write still queued but not
 * moving as no activity, so it fires only for a client that reads nothing. A connection whose answer has
 * not begun (a handler still at work, a body still arriving, which the request time-outs watch) is left
 * alone; any other that times out is closed, as Node does without a listener (an idle kept-alive one).
 */
export const cutOffStalledAnswers = (server: Server, millis: number): Server => {
  server.timeout = millis
  return server.on("timeout", (socket: Socket) => {
    const answer = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage
    if (answer != null && !answer.headersSent) return
    socket.destroy()
  })
}

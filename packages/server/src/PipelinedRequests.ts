import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { Socket } from "node:net"

interface Turns {
  /** Whether a request of the connection is with the API and its answer not handed to the kernel yet. */
  busy: boolean
  readonly waiting: Array<readonly [IncomingMessage, ServerResponse]>
}

/**
 * Passes a connection's pipelined requests on to the API one at a time: the next once the answer before
 * it is wholly handed to the kernel (its `finish`). Node parses every request of a chunk at once and runs
 * their handlers side by side, though HTTP/1.1 sends their answers in order: a client that pipelines 20
 * requests and reads nothing had all 20 answers built and held in memory (1,000 such connections: 320 MB).
 * Now it holds one answer at most, which the stalled-answer cut-off bounds in time; the requests behind it
 * are never worked on. A client that reads gets every answer, in order, each built once the one before it
 * is on its way (the loopback's or network's buffers take it at once).
 */
export const answerPipelinedInTurn = (server: Server): Server => {
  const turns = new WeakMap<Socket, Turns>()
  const emit = server.emit
  const serve = (turns: Turns, request: IncomingMessage, response: ServerResponse) => {
    turns.busy = true
    let done = false
    const next = () => {
      if (done) return
      done = true
      turns.busy = false
      const following = turns.waiting.shift()
      if (following === undefined) return
      // After the event loop's I/O (setImmediate): a client whose answers the kernel's buffers take at once
      // would otherwise have all its pipelined requests served before the server accepts another
      // connection (a /health check waited ~1 s behind 50 of them).
      setImmediate(() => {
        // A closed connection's waiting requests are dropped: nobody reads their answers.
        if (following[0].socket.destroyed) turns.waiting.length = 0
        else serve(turns, following[0], following[1])
      })
    }
    response.once("finish", next)
    response.once("close", next)
    ;(emit as (event: string, ...args: Array<unknown>) => boolean).call(server, "request", request, response)
  }
  // Ahead of the API's listener, which would otherwise take each request as it is parsed.
  server.emit = function (this: Server, event: string | symbol, ...args: Array<any>) {
    if (event !== "request") return emit.apply(this, [event, ...args] as Parameters<Server["emit"]>)
    const [request, response] = args as [IncomingMessage, ServerResponse]
    let connection = turns.get(request.socket)
    if (connection === undefined) {
      connection = { busy: false, waiting: [] }
      turns.set(request.socket, connection)
    }
    if (connection.busy) connection.waiting.push([request, response])
    else serve(connection, request, response)
    return true
  } as Server["emit"]
  return server
}

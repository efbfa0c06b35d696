import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { Socket } from "node:net"

/** Requests started per turn of the event loop, across connections; the others wait for the next turn. */
const perTurn = 4

/** Answered at once whatever waits: a load balancer's checks must not queue behind a burst. */
const probes: ReadonlySet<string | undefined> = new Set(["/health", "/ready"])

interface Turns {
  /** Whether a request of the connection is with the API and its answer not handed to the kernel yet. */
  busy: boolean
  readonly waiting: Array<readonly [IncomingMessage, ServerResponse]>
}

/**
 * Passes requests on to the API fairly.
 * - A connection's pipelined requests one at a time: the next once the answer before it is wholly handed
 *   to the kernel (its `finish`). Node parses every request of a chunk at once and runs their handlers side
 *   by side, though HTTP/1.1 sends their answers in order: a client that pipelines 20 requests and reads
 *   nothing had all 20 answers built and held in memory (1,000 such connections: 320 MB). Now it holds one
 *   answer at most, which the stalled-answer cut-off bounds in time; the requests behind it are never
 *   worked on. A client that reads gets every answer, in order.
 * - At most `perTurn` requests start per turn of the event loop, across connections; the rest start in the
 *   next turns, in arrival order, after the loop has taken I/O. 300 connections arriving at once, each with
 *   pipelined 400 KB answers, held the loop for 2-3 s before a /health check was accepted; with 4 a turn,
 *   0.7 s. Under ordinary load a turn's requests start at once (64 connections listing records served as
 *   many requests a second as without it). /health and /ready start at once, whatever waits.
 */
export const answerPipelinedInTurn = (server: Server): Server => {
  const turns = new WeakMap<Socket, Turns>()
  const emit = server.emit
  const due: Array<() => void> = []
  let started = 0
  let turnEnds = false
  const endTurn = () => {
    turnEnds = false
    started = 0
    while (due.length > 0 && started < perTurn) {
      started++
      due.shift()!()
    }
    if (due.length > 0 || started > 0) watchTurn()
  }
  const watchTurn = () => {
    if (turnEnds) return
    turnEnds = true
    setImmediate(endTurn)
  }
  const admit = (start: () => void) => {
    watchTurn()
    if (due.length === 0 && started < perTurn) {
      started++
      start()
    } else due.push(start)
  }
  const serve = (turns: Turns, request: IncomingMessage, response: ServerResponse) => {
    turns.busy = true
    let done = false
    const next = () => {
      if (done) return
      done = true
      turns.busy = false
      const following = turns.waiting.shift()
      if (following === undefined) return
      turns.busy = true
      admit(() => {
        if (following[0].socket.destroyed) {
          turns.busy = false
          turns.waiting.length = 0
        } else serve(turns, following[0], following[1])
      })
    }
    response.once("finish", next)
    response.once("close", next)
    ;(emit as (event: string, ...args: Array<unknown>) => boolean).call(server, "request", request, response)
  }
  server.emit = function (this: Server, event: string | symbol, ...args: Array<unknown>) {
    if (event !== "request") return emit.apply(this, [event, ...args] as Parameters<Server["emit"]>)
    const [request, response] = args as [IncomingMessage, ServerResponse]
    let connection = turns.get(request.socket)
    if (connection === undefined) {
      connection = { busy: false, waiting: [] }
      turns.set(request.socket, connection)
    }
    const own = connection
    if (own.busy) own.waiting.push([request, response])
    else if (probes.has(request.url)) serve(own, request, response)
    else {
      own.busy = true
      admit(() => {
        if (request.socket.destroyed) own.busy = false
        else serve(own, request, response)
      })
    }
    return true
  } as Server["emit"]
  return server
}

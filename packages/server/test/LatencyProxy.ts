import { Effect } from "effect"
import { createConnection, createServer, type Socket } from "node:net"
import { Worker } from "node:worker_threads"

/** A running proxy: `url` is the target's URL with the proxy's address in it. */
export interface LatencyProxy {
  readonly url: string
  readonly port: number
  readonly close: () => Promise<void>
}

// Node's timers count whole milliseconds and fire up to one late (0.5 ms asked of setTimeout takes 1-2 ms,
// so a "1 ms" round trip measured 2.4 ms), which would misstate the sub-millisecond delays a database in the
// same data centre adds. The deadlines are kept on the high-resolution clock instead, and a worker thread
// sleeps until the next one with `Atomics.wait`, which takes fractions of a millisecond, then wakes the
// relay. Shared memory: [0] a generation bumped whenever the relay sets a deadline, [1] a stop flag, then
// the next deadline (ms on the hrtime clock, Infinity when nothing waits).
const timerSource = `
const { parentPort, workerData } = require("node:worker_threads")
const control = new Int32Array(workerData, 0, 2)
const deadline = new Float64Array(workerData, 8, 1)
const now = () => Number(process.hrtime.bigint()) / 1e6
while (Atomics.load(control, 1) === 0) {
  const generation = Atomics.load(control, 0)
  const wait = deadline[0] - now()
  if (wait > 0) Atomics.wait(control, 0, generation, wait)
  else {
    parentPort.postMessage(0)
    Atomics.wait(control, 0, generation)
  }
}
`

const now = () => Number(process.hrtime.bigint()) / 1e6

/**
 * A TCP proxy in front of the server at `url` that delays every chunk by `oneWayMillis` in each
 * direction, as a database across a network does: a statement's answer arrives a round trip
 * (2 x `oneWayMillis`) after it was sent, so a request can be cut off while its statement is on the way.
 * Chunks and the ends of connections keep their order: every delay is the same, so one queue in arrival
 * order is also the order of the deadlines. 0 relays at once.
 */
export const startLatencyProxy = (url: string, oneWayMillis: number): Promise<LatencyProxy> => {
  const target = new URL(url)
  const sockets = new Set<Socket>()
  const shared = new SharedArrayBuffer(16)
  const control = new Int32Array(shared, 0, 2)
  const deadline = new Float64Array(shared, 8, 1)
  deadline[0] = Number.POSITIVE_INFINITY
  const timer = oneWayMillis > 0 ? new Worker(timerSource, { eval: true, workerData: shared }) : undefined
  timer?.unref()
  const queue: Array<{ readonly due: number; readonly run: () => void }> = []
  let head = 0
  // How late this thread runs after the worker's wake-up (thread hand-over, a busy event loop): its median,
  // learnt as it goes in steps of 10 us. The worker is woken that much before a deadline, so that half the
  // chunks leave late and half early, and the median delay is the one asked for.
  let lead = 0
  let armed = Number.POSITIVE_INFINITY
  const arm = (due: number) => {
    armed = due - lead
    deadline[0] = armed
    Atomics.add(control, 0, 1)
    Atomics.notify(control, 0)
  }
  timer?.on("message", () => {
    const at = now()
    if (armed <= at) lead = Math.min(oneWayMillis, Math.max(0, lead + (at - armed > lead ? 0.01 : -0.01)))
    while (head < queue.length && queue[head]!.due - lead <= at) queue[head++]!.run()
    if (head === queue.length) {
      queue.length = 0
      head = 0
    }
    arm(head < queue.length ? queue[head]!.due : Number.POSITIVE_INFINITY)
  })
  const later = (run: () => void) => {
    if (timer === undefined) return run()
    const due = now() + oneWayMillis
    queue.push({ due, run })
    if (queue.length - head === 1) arm(due)
  }
  const relay = (from: Socket, to: Socket) => {
    from.on("data", (chunk: Buffer) => later(() => void (to.destroyed || to.write(chunk))))
    from.on("end", () => later(() => to.end()))
    from.on("error", () => to.destroy())
    from.on("close", () => later(() => to.destroy()))
  }
  const track = (socket: Socket) => {
    socket.setNoDelay(true)
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  }
  const server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) })
    track(client)
    track(upstream)
    relay(client, upstream)
    relay(upstream, client)
  })
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      const proxied = new URL(url)
      proxied.host = `127.0.0.1:${port}`
      const close = () =>
        new Promise<void>((done) => {
          for (const socket of sockets) socket.destroy()
          Atomics.store(control, 1, 1)
          arm(Number.POSITIVE_INFINITY)
          void timer?.terminate()
          server.close(() => done())
        })
      resolve({ url: proxied.toString(), port, close })
    })
  )
}

/** `startLatencyProxy` for the scope: closed with it. */
export const latencyProxy = (url: string, oneWayMillis: number) =>
  Effect.acquireRelease(
    Effect.promise(() => startLatencyProxy(url, oneWayMillis)),
    (proxy) => Effect.promise(proxy.close)
  )

import { Effect } from "effect"
import { createConnection, createServer, type Socket } from "node:net"

/**
 * A TCP proxy in front of the server at `url` that delays every chunk by `millis` in each direction, as a
 * database across a network does: a statement's answer arrives a round trip after it was sent, so a
 * request can be cut off while its statement is on the way. Chunks keep their order (timers of one
 * duration fire in the order they were set). Returns `url` with the proxy's address; closed with the scope.
 */
export const latencyProxy = (url: string, millis: number) =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly close: () => Promise<void> }>((resume) => {
      const target = new URL(url)
      const sockets = new Set<Socket>()
      const track = (socket: Socket) => {
        sockets.add(socket)
        socket.on("close", () => sockets.delete(socket))
      }
      const relay = (from: Socket, to: Socket) => {
        from.on("data", (chunk: Buffer) => setTimeout(() => void (to.destroyed || to.write(chunk)), millis))
        from.on("end", () => setTimeout(() => to.end(), millis))
        from.on("error", () => to.destroy())
        from.on("close", () => setTimeout(() => to.destroy(), millis))
      }
      const server = createServer((client) => {
        const upstream = createConnection({ host: target.hostname, port: Number(target.port) })
        track(client)
        track(upstream)
        relay(client, upstream)
        relay(upstream, client)
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        const proxied = new URL(url)
        proxied.host = `127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
        const close = () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy()
            server.close(() => done())
          })
        resume(Effect.succeed({ url: proxied.toString(), close }))
      })
    }),
    (proxy) => Effect.promise(proxy.close)
  )

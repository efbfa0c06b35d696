import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { Socket } from "node:net"

/** Connections past `HTTP_MAX_CONNECTIONS` kept for health checks. */
export const healthReserve = 8

/** How long a connection in the reserve has to ask for /health. */
const reserveMillis = 1_000

const isHealthCheck = (request: IncomingMessage) => request.method === "GET" && request.url?.split("?")[0] === "/health"

/**
 * A few connections past the cap (`max`) for health checks: while clients hold every slot (slow readers,
 * idle connections), a load balancer's GET /health still gets its answer instead of a closed connection.
 * A connection in the reserve is closed unless it asks for /health within a second, and after its answer.
 */
export const reserveForHealthChecks = (server: Server, max: number): Server => {
  let open = 0
  const reserved = new WeakSet<Socket>()
  server.maxConnections = max + healthReserve
  server.on("connection", (socket: Socket) => {
    open++
    socket.once("close", () => void open--)
    if (open <= max) return
    reserved.add(socket)
    const timer = setTimeout(() => socket.destroy(), reserveMillis)
    socket.once("close", () => clearTimeout(timer))
  })
  const emit = server.emit
  server.emit = function (this: Server, event: string | symbol, ...args: Array<unknown>) {
    if (event === "request") {
      const [request, response] = args as [IncomingMessage, ServerResponse]
      if (reserved.has(request.socket)) {
        if (!isHealthCheck(request)) {
          request.socket.destroy()
          return true
        }
        response.shouldKeepAlive = false
      }
    }
    return emit.apply(this, [event, ...args] as Parameters<Server["emit"]>)
  } as Server["emit"]
  return server
}

import { addressGroup, fromTrustedProxy, normalizeAddress, type ProxySettings } from "@catalog-sync/adapter-http"
import type { Server } from "node:http"
import type { Socket } from "node:net"

/**
 * Closes at once a connection from a client address (an IPv6 /64, as the failed-key throttle counts it)
 * that already holds `max` of them, so that one client cannot take every connection the server accepts
 * (`HTTP_MAX_CONNECTIONS`). Trusted proxies are not capped: every client behind them shares their address.
 */
export const capConnectionsPerAddress = (server: Server, max: number, proxies: ProxySettings): Server => {
  const open = new Map<string, number>()
  return server.on("connection", (socket: Socket) => {
    const address = normalizeAddress(socket.remoteAddress)
    if (address === undefined || fromTrustedProxy(address, proxies)) return
    const client = addressGroup(address)
    const count = (open.get(client) ?? 0) + 1
    if (count > max) {
      socket.destroy()
      return
    }
    open.set(client, count)
    socket.once("close", () => {
      const left = (open.get(client) ?? 1) - 1
      if (left === 0) open.delete(client)
      else open.set(client, left)
    })
  })
}

import { declaresOver, type RouteTable } from "@catalog-sync/adapter-http"
import type { Server } from "node:http"

/**
 * `Expect: 100-continue` (curl sends it with bodies over 1 MB): node answers 100 Continue as such a request
 * arrives, so a client whose body is declared over the limit was told to send it, got 413 with the
 * connection closed while it was still sending, and often read a reset instead of the answer. Such a
 * request (over its route's limit) now gets no 100: its client reads the 413 and sends nothing. Every other one goes on at once, as
 * before (a key refused before the body is read still has its body drained, and keeps its connection).
 */
export const continueOnlyBodiesWithinLimits = (server: Server, routes: RouteTable.RouteTable): Server =>
  server.on("checkContinue", (request, response) => {
    const limit = routes.bodyLimit(routes.find(request.method ?? "", request.url ?? ""))
    if (!declaresOver(request.headers["content-length"], limit)) response.writeContinue()
    server.emit("request", request, response)
  })

import { declaresOver, type RouteTable } from "@catalog-sync/adapter-http"
import type { IncomingMessage, Server, ServerResponse } from "node:http"

/**
 * `Expect: 100-continue` (curl sends it with bodies over 1 MB): node answers 100 Continue as such a request
 * arrives, so a client whose body is declared over the limit was told to send it, got 413 with the
 * connection closed while it was still sending, and often read a reset instead of the answer. Such a
 * request (over its route's limit) now gets no 100: its client reads the 413 and sends nothing. Every other one goes on at once, as
 * before (a key refused before the body is read still has its body drained, and keeps its connection).
 * The request then goes to the server's `request` listeners, and to no other `checkContinue` listener:
 * NodeHttpServer adds one of its own, which would serve the request a second time (both listeners are
 * called), and which closes the connection of any answer given before the body is read.
 */
export const continueOnlyBodiesWithinLimits = (server: Server, routes: RouteTable.RouteTable): Server => {
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: Array<unknown>) => boolean
  const checkContinue = (request: IncomingMessage, response: ServerResponse) => {
    const limit = routes.bodyLimit(routes.find(request.method ?? "", request.url ?? ""))
    if (!declaresOver(request.headers["content-length"], limit)) response.writeContinue()
    return emit("request", request, response)
  }
  server.emit = ((event: string | symbol, ...args: Array<unknown>) =>
    event === "checkContinue"
      ? checkContinue(...(args as [IncomingMessage, ServerResponse]))
      : emit(event, ...args)) as Server["emit"]
  // Node emits `checkContinue` only to a server that listens for it (else it sends 100 to every request).
  return server.on("checkContinue", checkContinue)
}

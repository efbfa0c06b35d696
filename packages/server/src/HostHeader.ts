import { isAbsoluteForm } from "@catalog-sync/adapter-http"
import type { IncomingMessage, Server } from "node:http"

/**
 * Makes an absolute-form target origin-form before any listener routes it: `GET
 * http://api.beta.example/api/v1/me` is answered for its own host, as HTTP requires (RFC 9112 3.2.2),
 * whatever Host says, and routed by its path. A target that is not a valid URL is left as sent: the API's
 * front controller refuses it (400 invalid_host), with its other checks of the host, in the logged and
 * counted path of every request.
 */
const originForm = (request: IncomingMessage) => {
  const url = request.url ?? ""
  if (!isAbsoluteForm(url)) return
  let target: URL
  try {
    target = new URL(url)
  } catch {
    return
  }
  request.url = `${target.pathname}${target.search}`
  request.headers.host = target.host
}

/** Applies `originForm` ahead of every listener of the server (the API's and the 100-continue check's). */
export const originFormTargets = (server: Server): Server => {
  const emit = server.emit
  server.emit = function (this: Server, event: string | symbol, ...args: Array<unknown>) {
    if (event === "request" || event === "checkContinue") originForm(args[0] as IncomingMessage)
    return emit.apply(this, [event, ...args] as Parameters<Server["emit"]>)
  } as Server["emit"]
  return server
}

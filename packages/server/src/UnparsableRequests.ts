import { randomUUID } from "node:crypto"
import type { Server } from "node:http"
import type { Duplex } from "node:stream"

/** What node:http could not parse, as the API's status and error. */
const answerFor = (code: string | undefined) =>
  code === "HPE_HEADER_OVERFLOW"
    ? {
        status: 431,
        reason: "Request Header Fields Too Large",
        code: "request_headers_too_large",
        message: "the request line and headers exceed 16 KB; send long filters in fewer or shorter parameters"
      }
    : code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? {
          status: 408,
          reason: "Request Timeout",
          code: "request_timeout",
          message: "the request line, headers or body arrived too slowly; the connection is closed"
        }
      : {
          status: 400,
          reason: "Bad Request",
          code: "malformed_request",
          message: "the request is not valid HTTP/1.1 (its framing or a header could not be read)"
        }

/** An error the edge answers on the connection itself, outside the API. */
export interface EdgeError {
  readonly status: number
  readonly reason: string
  readonly code: string
  readonly message: string
}

/** The API's error body of `answer` and the headers it goes with, under a new request id. */
export const errorAnswer = (answer: EdgeError) => {
  const requestId = randomUUID()
  const body = JSON.stringify({ request_id: requestId, error: { code: answer.code, message: answer.message } })
  const headers = {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(body)),
    "x-request-id": requestId,
    "x-content-type-options": "nosniff",
    "cache-control": "no-store",
    connection: "close"
  }
  return { headers, body }
}

/**
 * Writes `answer` straight to the connection and ends it: for a request the API never sees, or one whose
 * connection cannot be trusted further.
 */
export const endWithError = (socket: Duplex, answer: EdgeError) => {
  const { body, headers } = errorAnswer(answer)
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("")
  return socket.end(`HTTP/1.1 ${answer.status} ${answer.reason}\r\n${head}\r\n${body}`)
}

/**
 * Requests that node:http cannot parse never reach the API: node answers them with an empty 400 or 431
 * and no request id. This answers them with the API's error body and X-Request-Id instead, then closes
 * the connection (what follows on it cannot be trusted). A request not received within the header or
 * request timeout gets 408. A connection that broke is only closed.
 */
export const answerUnparsableRequests = (server: Server): Server =>
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A response already under way on this connection cannot be followed by another one.
    const inFlight =
      (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true
    if (error.code === "ECONNRESET" || !socket.writable || inFlight) {
      socket.destroy()
      return
    }
    endWithError(socket, answerFor(error.code))
  })

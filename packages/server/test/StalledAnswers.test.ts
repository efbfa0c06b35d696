import { describe, expect, it } from "@effect/vitest"
import { createServer, type Server } from "node:http"
import { connect, type AddressInfo } from "node:net"
import { cutOffStalledAnswers } from "../src/StalledAnswers.js"

const listening = (server: Server) =>
  new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)))

/** Sends `request` on a raw connection and resolves with what arrived and whether the server closed it. */
const exchange = (port: number, request: string, options: { readonly readAfterMillis: number }) =>
  new Promise<{ readonly bytes: number; readonly closed: boolean }>((resolve) => {
    let bytes = 0
    const socket = connect({ port, host: "127.0.0.1" }, () => {
      socket.pause()
      socket.write(request)
      setTimeout(() => socket.resume(), options.readAfterMillis)
    })
    socket.on("data", (chunk: Buffer) => void (bytes += chunk.length))
    socket.on("error", () => undefined)
    socket.on("close", () => resolve({ bytes, closed: true }))
    setTimeout(() => {
      resolve({ bytes, closed: false })
      socket.destroy()
    }, options.readAfterMillis + 1_500)
  })

describe("answers that make no progress", () => {
  it("a client that reads nothing of a large answer is cut off; a slow handler and a reading client are not", async () => {
    const large = Buffer.alloc(32 * 1024 * 1024, 0x61)
    const server = cutOffStalledAnswers(
      createServer((request, response) => {
        if (request.url === "/slow") setTimeout(() => response.end("done"), 700)
        else response.end(large)
      }),
      300
    )
    const port = await listening(server)
    try {
      // Reads nothing for 1 s: the answer stalls past 300 ms and the connection is closed before the rest.
      const stalled = await exchange(port, "GET /large HTTP/1.1\r\nHost: x\r\n\r\n", { readAfterMillis: 1_000 })
      expect(stalled.closed).toBe(true)
      expect(stalled.bytes).toBeLessThan(large.length)
      // A handler that takes 700 ms has begun no answer yet: its connection is kept and the answer arrives.
      const slow = await exchange(port, "GET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", {
        readAfterMillis: 0
      })
      expect(slow.bytes).toBeGreaterThan(0)
      // A client that reads gets the whole answer.
      const read = await exchange(port, "GET /large HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", {
        readAfterMillis: 0
      })
      expect(read.bytes).toBeGreaterThan(large.length)
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })
})

/** Clients for the edge suite: Node's fetch, undici's request, curl and a raw socket. */
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { writeFileSync } from "node:fs"
import { connect, type Socket } from "node:net"
import { join } from "node:path"
import { request } from "undici"
import { at } from "./Json.js"

export interface Answer {
  readonly status: number
  readonly code: string | undefined
  readonly connection: string | null
}

/** A network error is an answer too: status 0 and the error's code, so that a table shows it. */
const failed = (error: unknown): Answer => ({
  status: 0,
  code: String(at(error, "cause", "code") ?? at(error, "code") ?? at(error, "message")),
  connection: null
})

const codeOf = (text: string) => {
  try {
    const code = at(JSON.parse(text) as unknown, "error", "code")
    return typeof code === "string" ? code : undefined
  } catch {
    return undefined
  }
}

export interface Sent {
  readonly url: string
  readonly headers: Record<string, string>
  readonly body: Uint8Array | FormData
}

export const viaFetch = ({ body, headers, url }: Sent) =>
  Effect.promise(async (): Promise<Answer> => {
    try {
      const response = await fetch(url, { method: "POST", headers, body })
      return {
        status: response.status,
        code: codeOf(await response.text()),
        connection: response.headers.get("connection")
      }
    } catch (error) {
      return failed(error)
    }
  })

export const viaUndici = ({ body, headers, url }: Sent) =>
  Effect.promise(async (): Promise<Answer> => {
    try {
      if (body instanceof FormData) throw new Error("undici sends raw bodies here")
      const response = await request(url, { method: "POST", headers, body: Buffer.from(body) })
      const connection = response.headers["connection"]
      return {
        status: response.statusCode,
        code: codeOf(await response.body.text()),
        connection: typeof connection === "string" ? connection : null
      }
    } catch (error) {
      return failed(error)
    }
  })

/** curl with the body from a file (`--data-binary @file`), as a shell script would send it. */
export const viaCurl =
  (dir: string) =>
  ({ body, headers, url }: Sent) =>
    Effect.promise(async (): Promise<Answer> => {
      if (body instanceof FormData) throw new Error("curl sends raw bodies here")
      const file = join(dir, `body-${body.length}`)
      writeFileSync(file, body)
      const args = [
        "-s",
        "-S",
        "-X",
        "POST",
        "-o",
        "-",
        "-w",
        "\n%{http_code}",
        ...Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}: ${v}`]),
        "--data-binary",
        `@${file}`,
        url
      ]
      return await new Promise<Answer>((resolve) => {
        execFile("curl", args, { maxBuffer: 1 << 20 }, (error, stdout) => {
          const at = stdout.lastIndexOf("\n")
          const status = Number(stdout.slice(at + 1))
          resolve(
            error !== null && !(status > 0)
              ? { status: 0, code: `curl exit ${error?.code}`, connection: null }
              : { status, code: codeOf(stdout.slice(0, at)), connection: null }
          )
        })
      })
    })

/**
 * A raw connection that reads answers as they come, so that a test can send a request's head, read the
 * answer before sending its body, and go on on the same connection.
 */
export const rawConnection = (
  url: string,
  options: { readonly halfOpen?: boolean; readonly localAddress?: string } = {}
) =>
  Effect.acquireRelease(
    Effect.callback<{
      readonly socket: Socket
      readonly received: () => string
      readonly closed: () => boolean
      /** Whether the server ended its side (its FIN arrived); a half-open connection stays writable. */
      readonly ended: () => boolean
      /** The code of the error the socket met (a send cut off by a reset: EPIPE, ECONNRESET), if any. */
      readonly failed: () => string | undefined
      readonly reset: () => void
    }>((resume) => {
      let text = ""
      let isClosed = false
      let isEnded = false
      let failure: string | undefined
      // Half open: the server's FIN does not end this side's sending, as with curl, which goes on sending a
      // body after an early answer (Node's default ends it, and then drops what is still written).
      const socket = connect(
        {
          port: Number(new URL(url).port),
          host: "127.0.0.1",
          allowHalfOpen: options.halfOpen,
          ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress })
        },
        () =>
          resume(
            Effect.succeed({
              socket,
              received: () => text,
              closed: () => isClosed,
              ended: () => isEnded,
              failed: () => failure,
              reset: () => void (text = "")
            })
          )
      )
      socket.on("data", (chunk) => void (text += chunk.toString("latin1")))
      socket.on("error", (error: NodeJS.ErrnoException) => void (failure ??= error.code ?? error.message))
      socket.on("end", () => void (isEnded = true))
      socket.on("close", () => void (isClosed = true))
    }),
    ({ socket }) => Effect.sync(() => socket.destroy())
  )

/** Waits until `done` holds (checked every 10 ms), at most `millis`; returns whether it did. */
export const until = (done: () => boolean, millis: number) =>
  Effect.gen(function* () {
    const start = Date.now()
    while (!done()) {
      if (Date.now() - start > millis) return false
      yield* Effect.sleep("10 millis")
    }
    return true
  })

/** Every complete HTTP answer in `text`: status and error code (bodies are JSON with content-length). */
export const answersIn = (text: string): Array<{ status: number; code: string | undefined; close: boolean }> => {
  const out: Array<{ status: number; code: string | undefined; close: boolean }> = []
  let rest = text
  for (;;) {
    const head = rest.indexOf("\r\n\r\n")
    if (!rest.startsWith("HTTP/1.1 ") || head === -1) return out
    const headers = rest.slice(0, head)
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(headers)?.[1] ?? "0")
    if (rest.length < head + 4 + length) return out
    out.push({
      status: Number(headers.slice(9, 12)),
      code: codeOf(rest.slice(head + 4, head + 4 + length)),
      close: /\r\nconnection: close/i.test(headers)
    })
    rest = rest.slice(head + 4 + length)
  }
}

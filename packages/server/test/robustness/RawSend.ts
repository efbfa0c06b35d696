import { Effect } from "effect"
import { request as httpRequest } from "node:http"

export interface RawReply {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly text: string
}

/**
 * One request through node:http, which (unlike fetch) sends anything: a body on GET, raw bytes, any
 * header. A connection the server closes after answering (413) still yields the answer.
 */
export const rawSend = (
  url: string,
  method: string,
  pathAndQuery: string,
  headers: Record<string, string>,
  body?: Uint8Array | string
) =>
  Effect.callback<RawReply, Error>((resume) => {
    const target = new URL(url)
    let done = false
    const finish = (result: Effect.Effect<RawReply, Error>) => {
      if (!done) {
        done = true
        resume(result)
      }
    }
    // node:http refuses header characters above U+00FF; their UTF-8 bytes, as latin1, go out as a raw client sends them.
    const wire = Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name, Buffer.from(value, "utf8").toString("latin1")])
    )
    // A length frames the body on every method (node does not chunk GET or DELETE bodies).
    if (body !== undefined && wire["content-length"] === undefined)
      wire["content-length"] = String(Buffer.byteLength(body))
    const req = httpRequest(
      { host: target.hostname, port: target.port, method, path: pathAndQuery, headers: wire, agent: false },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () =>
          finish(
            Effect.succeed({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: Buffer.concat(chunks).toString("utf8")
            })
          )
        )
        res.on("error", (error) => finish(Effect.fail(error)))
      }
    )
    req.on("error", (error) => finish(Effect.fail(error)))
    if (body !== undefined) req.write(body)
    req.end()
  })

/** Where a client cuts its request off: `afterMillis` after sending all of it, or mid-body (head and half the body sent). */
export interface CutOff {
  readonly afterMillis: number
  readonly midBody: boolean
}

/**
 * A request whose client goes away (a deadline, a proxy time-out, a dropped mobile connection): the
 * socket is destroyed at the cut-off. Resolves to the answer when it arrived whole before that, else
 * `undefined` (the client cannot know whether the server acted).
 */
export const sendCutOff = (
  url: string,
  method: string,
  pathAndQuery: string,
  headers: Record<string, string>,
  body: string,
  cut: CutOff
) =>
  new Promise<RawReply | undefined>((resolve) => {
    const target = new URL(url)
    const bytes = Buffer.from(body, "utf8")
    let settled = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const finish = (reply: RawReply | undefined) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(reply)
      req.destroy()
    }
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method,
        path: pathAndQuery,
        headers: { ...headers, "content-length": String(bytes.length) },
        agent: false
      },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () =>
          finish({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") })
        )
        res.on("error", () => finish(undefined))
      }
    )
    req.on("error", () => finish(undefined))
    const cutAfter = () => void (timer = setTimeout(() => finish(undefined), cut.afterMillis))
    if (cut.midBody) req.write(bytes.subarray(0, Math.floor(bytes.length / 2)), cutAfter)
    else req.end(bytes, cutAfter)
  })

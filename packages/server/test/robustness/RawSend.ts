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
export const rawSend = (url: string, method: string, pathAndQuery: string, headers: Record<string, string>, body?: Uint8Array | string) =>
  Effect.async<RawReply, Error>((resume) => {
    const target = new URL(url)
    let done = false
    const finish = (result: Effect.Effect<RawReply, Error>) => {
      if (!done) {
        done = true
        resume(result)
      }
    }
    // node:http refuses header characters above U+00FF; their UTF-8 bytes, as latin1, go out as a raw client sends them.
    const wire = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, Buffer.from(value, "utf8").toString("latin1")]))
    // A length frames the body on every method (node does not chunk GET or DELETE bodies).
    if (body !== undefined && wire["content-length"] === undefined) wire["content-length"] = String(Buffer.byteLength(body))
    const req = httpRequest({ host: target.hostname, port: target.port, method, path: pathAndQuery, headers: wire, agent: false }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => finish(Effect.succeed({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") })))
      res.on("error", (error) => finish(Effect.fail(error)))
    })
    req.on("error", (error) => finish(Effect.fail(error)))
    if (body !== undefined) req.write(body)
    req.end()
  })

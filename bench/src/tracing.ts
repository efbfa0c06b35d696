import { mkdirSync } from "node:fs"
import { createServer as createHttpServer } from "node:http"
import { join } from "node:path"
import { median } from "./load.js"
import type { ScenarioContext } from "./mainServer.js"
import { compare } from "./measuring.js"
import { type Child, serverArgs, start } from "./processes.js"
import { createRequest, getRequest } from "./requests.js"
import type { Row } from "./row.js"
import { copyDatabase } from "./setup.js"

/**
 * Scenario 9: what tracing costs. Three servers on copies of the main database: tracing off (as shipped),
 * on keeping every trace, on keeping 1 % (`parentbased_traceidratio`); spans go over OTLP/HTTP to a sink in
 * this process that reads and drops them. GET /products/:id and creates, alternating rounds; the ratios
 * are each traced server against the untraced one.
 */
export const scenarioTracing = async (context: ScenarioContext): Promise<Array<Row>> => {
  const sink = createHttpServer((request, response) => {
    request.resume()
    // An empty export response in the request's encoding: no bytes in protobuf (the default), `{}` in JSON.
    const protobuf = request.headers["content-type"] === "application/x-protobuf"
    request.on("end", () =>
      protobuf
        ? response.writeHead(200, { "content-type": "application/x-protobuf" }).end()
        : response.writeHead(200, { "content-type": "application/json" }).end("{}")
    )
  })
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve))
  const endpoint = `http://127.0.0.1:${(sink.address() as { port: number }).port}`
  const variants = [
    { name: "off", env: {} },
    { name: "on 100%", env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_SAMPLER: "parentbased_always_on" } },
    {
      name: "on 1%",
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
        OTEL_TRACES_SAMPLER_ARG: "0.01"
      }
    }
  ]
  const servers: Array<Child> = []
  try {
    for (const variant of variants) {
      const dir = join(context.work, `tracing-${servers.length}`)
      mkdirSync(dir)
      copyDatabase(context.db, join(dir, "catalog-sync.db"))
      servers.push(await start(`tracing ${variant.name}`, serverArgs(undefined), { DATA_DIR: dir, ...variant.env }))
    }
    const rows: Array<Row> = []
    const measures = [
      { measure: "GET /products/:id", request: () => getRequest(context.companies) },
      { measure: "POST /products/upsert (create)", request: () => createRequest(context.companies) }
    ]
    for (const { measure, request } of measures) {
      const c = await compare(
        `${measure} tracing`,
        servers.map((server, i) => ({ name: variants[i]!.name, url: server.url, request }))
      )
      for (const on of ["on 100%", "on 1%"]) {
        rows.push({
          scenario: "9 tracing",
          measure: `${measure}, tracing ${on}`,
          value: c.median(on),
          unit: "req/s",
          baseline: "the same server, tracing off",
          baselineValue: c.median("off"),
          ratio: median(c.ratios(on, "off")),
          note: "spans exported over OTLP/HTTP to a sink on the load generator's core",
          rounds: { server: c.rps(on), baseline: c.rps("off") }
        })
      }
    }
    return rows
  } finally {
    for (const server of servers) await server.stop()
    sink.close()
  }
}

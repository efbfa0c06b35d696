import { median } from "./load.js"
import type { MainServer } from "./mainServer.js"
import { compare } from "./measuring.js"
import { wanted } from "./options.js"
import { start } from "./processes.js"
import { feedRequest, getRequest, listRequest } from "./requests.js"
import type { Row } from "./row.js"

/**
 * Scenario 1 (`--only=get,list,feed`): reads on the main server against an empty HttpApi with the same
 * schemas and a raw node:http server answering the same bodies. Also returns the server's GET
 * saturation (NaN when `get` is not run): the overload scenario offers twice that.
 */
export const scenarioReads = async (main: MainServer): Promise<{ rows: Array<Row>; getSaturation: number }> => {
  const { server: real, companies, fixtures, cursors } = main
  const rows: Array<Row> = []
  let getSaturation = Number.NaN
  const rawGet = await start("raw-get", ["bench/dist/servers.js", "raw-get", "$PORT", fixtures])
  const emptyApi = await start("empty-api", ["bench/dist/servers.js", "empty-api", "$PORT", fixtures])
  const endpoints = [
    { name: "get", measure: "GET /products/:id", request: () => getRequest(companies) },
    { name: "list", measure: "GET /products?limit=20", request: () => listRequest(companies, "limit=20") },
    {
      name: "feed",
      measure: "GET /changes, up-to-date cursor (empty page)",
      request: () => feedRequest(companies, cursors)
    }
  ]
  for (const endpoint of endpoints.filter((e) => wanted(e.name))) {
    const c = await compare(endpoint.measure, [
      { name: "server", url: real.url, request: endpoint.request },
      { name: "empty HttpApi", url: emptyApi.url, request: endpoint.request },
      { name: "raw node:http", url: rawGet.url, request: endpoint.request }
    ])
    if (endpoint.name === "get") getSaturation = c.median("server")
    const vsEmpty = median(c.ratios("server", "empty HttpApi"))
    const target = { get: 0.4, list: 0.5, feed: 0.4 }[endpoint.name]!
    rows.push({
      scenario: "1 reads",
      measure: endpoint.measure,
      value: c.median("server"),
      unit: "req/s",
      baseline: "empty HttpApi, same schemas",
      baselineValue: c.median("empty HttpApi"),
      ratio: vsEmpty,
      target: `>= ${target.toFixed(2)}`,
      met: vsEmpty >= target,
      rounds: { server: c.rps("server"), baseline: c.rps("empty HttpApi") }
    })
    rows.push({
      scenario: "1 reads",
      measure: endpoint.measure,
      value: c.median("server"),
      unit: "req/s",
      baseline: "raw node:http, same body",
      baselineValue: c.median("raw node:http"),
      ratio: median(c.ratios("server", "raw node:http")),
      note: "raw is bounded by the load generator on 2 cores",
      rounds: { server: c.rps("server"), baseline: c.rps("raw node:http") }
    })
  }
  await rawGet.stop()
  await emptyApi.stop()
  return { rows, getSaturation }
}

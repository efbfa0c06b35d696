/**
 * The shared harness of the comparisons: servers loaded in alternating rounds, so that drift on a shared
 * machine hits every side alike, and the statuses checked.
 */
import { type LoadRequest, type LoadResult, load, median } from "./load.js"
import { connections, plan } from "./options.js"
import { log, warnings } from "./report.js"

/**
 * Rounds of a paired comparison, the order of the two sides swapped every other round so that drift
 * hits both alike; logs each round's pair.
 */
export const pairedRounds = async (
  label: string,
  unit: string,
  rounds: number,
  server: (round: number) => Promise<number>,
  baseline: (round: number) => Promise<number>
) => {
  const figures = { server: [] as Array<number>, baseline: [] as Array<number> }
  for (let round = 0; round < rounds; round++) {
    const sides = round % 2 === 0 ? (["server", "baseline"] as const) : (["baseline", "server"] as const)
    for (const side of sides) figures[side].push(await (side === "server" ? server : baseline)(round))
    log(
      `${label} round ${round + 1}: server ${Math.round(figures.server[round]!)} ${unit}, baseline ${Math.round(figures.baseline[round]!)} ${unit}`
    )
  }
  return figures
}

export interface Variant {
  readonly name: string
  readonly url: string
  readonly request: () => LoadRequest
}

export const checkStatuses = (label: string, result: LoadResult) => {
  // Updates catch up with a 409 for a request cut off at the end of the previous run: expected, few.
  const bad = Object.entries(result.statuses).filter(
    ([code]) => !code.startsWith("2") && !(code === "409" && label.includes("(update)"))
  )
  if (bad.length > 0 || result.errors > 0)
    warnings.push(`${label}: non-2xx ${JSON.stringify(Object.fromEntries(bad))}, errors ${result.errors}`)
}

/**
 * Throughput of several servers in alternating rounds (the order is reversed every other round); the
 * first variant is compared with each other one by the median of the per-round ratios.
 */
export const compare = async (label: string, variants: ReadonlyArray<Variant>, conns = connections) => {
  for (const v of variants) await load(v.url, v.request(), { seconds: plan.warmSeconds, connections: conns })
  const results: Record<string, Array<LoadResult>> = Object.fromEntries(variants.map((v) => [v.name, []]))
  for (let round = 0; round < plan.rounds; round++) {
    const order = round % 2 === 0 ? variants : [...variants].reverse()
    for (const v of order) {
      const result = await load(v.url, v.request(), { seconds: plan.seconds, connections: conns })
      checkStatuses(`${label} ${v.name} round ${round + 1}`, result)
      results[v.name]!.push(result)
    }
    log(
      `${label} round ${round + 1}: ${variants.map((v) => `${v.name} ${Math.round(results[v.name]![round]!.rps)}/s`).join(", ")}`
    )
  }
  const rps = (name: string) => results[name]!.map((r) => r.rps)
  const ratios = (a: string, b: string) => rps(a).map((x, i) => x / rps(b)[i]!)
  return { results, rps, ratios, median: (name: string) => median(rps(name)) }
}

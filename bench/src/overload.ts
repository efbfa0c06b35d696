import { mkdirSync, statSync } from "node:fs"
import { join } from "node:path"
import { grewMost, snapshotsIn, summarize } from "./heapSnapshots.js"
import { load, median } from "./load.js"
import type { MainServer } from "./mainServer.js"
import { connections, heapSnapshots, overloadBursts, plan, root } from "./options.js"
import { inspectMemory, rssMb, serverArgs, sleep, start } from "./processes.js"
import { log } from "./report.js"
import { getRequest } from "./requests.js"
import type { Row } from "./row.js"

/**
 * Scenario 6 (`--only=overload`): GET at twice the main server's saturation, in bursts, on a server with
 * the documented limits over the main database (the main server is stopped first): only 2xx, 429 and
 * 503 with Retry-After, and no memory that stays after a full GC growing from burst to burst.
 */
export const scenarioOverload = async (
  main: MainServer,
  getSaturation: number,
  resultsDir: string,
  stamp: string
): Promise<Array<Row>> => {
  const { server: real, companies, dir: mainDir } = main
  const rows: Array<Row> = []
  // Twice the measured GET saturation, offered by 4x the connections, against a slice of the keys
  // small enough that the rate limits answer part of it with 429: on the same database, served by a
  // server with the documented limits.
  let saturation = getSaturation
  if (Number.isNaN(saturation))
    saturation = (await load(real.url, getRequest(companies), { seconds: plan.seconds, connections })).rps
  await real.stop()
  const heapDir = heapSnapshots ? join(resultsDir, `heap-${stamp}`) : undefined
  if (heapDir !== undefined) mkdirSync(heapDir, { recursive: true })
  const limited = await start(
    "server (documented limits)",
    [
      "--inspect=127.0.0.1:0",
      ...(heapDir === undefined ? [] : ["--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${heapDir}`]),
      ...serverArgs(undefined)
    ],
    { DATA_DIR: mainDir }
  )
  /** Has the server write its heap (after a full GC) and waits until the file is complete. */
  const snapshot = async () => {
    const before = snapshotsIn(heapDir!).length
    limited.process.kill("SIGUSR2")
    for (let size = -1; ;) {
      await sleep(500)
      const files = snapshotsIn(heapDir!)
      if (files.length === before) continue
      const now = statSync(files[files.length - 1]!).size
      if (now > 0 && now === size) return
      size = now
    }
  }
  // Two companies: 10 keys, 1,200 requests a minute, far below the offered load.
  const slice = companies.slice(0, 2)
  const statuses: Record<string, number> = {}
  let missingRetryAfter = 0
  let other5xx = 0
  // The RSS right after a burst is mostly garbage: requests in flight for a second or more outlive the
  // young generation's collections, so each burst promotes its garbage to the old generation, which V8
  // lets grow to ~190 MB before a full collection brings it back to ~50 MB. Compared at whatever point of
  // that cycle each burst ended, the bursts' highest RSS climbed or fell by tens of percent between runs
  // (+14 % and +44 % from bursts 1-3 to 4-6). What a leak would grow is what stays after a full
  // collection: it is forced after each burst (over the inspector) and compared, the first burst (JIT,
  // caches filling) left out, half against half by median.
  const bursts = overloadBursts
  const snapshotAfter = new Set([1, Math.ceil(bursts / 2), bursts])
  const memory = await inspectMemory(limited)
  const rss: Array<number> = []
  const settled: Array<{ readonly rss: number; readonly heapUsed: number }> = []
  const idle = await memory.afterGc()
  for (let burst = 0; burst < bursts; burst++) {
    const base = getRequest(slice)
    const result = await load(
      limited.url,
      {
        ...base,
        onResponse: (status, _body, _context, headers) => {
          if (
            (status === 429 || status === 503) &&
            headers["retry-after"] === undefined &&
            headers["Retry-After"] === undefined
          )
            missingRetryAfter++
          if (status >= 500 && status !== 503) other5xx++
        }
      },
      { seconds: plan.overloadSeconds, connections: connections * 4, overallRate: saturation * 2 }
    )
    for (const [code, count] of Object.entries(result.statuses)) statuses[code] = (statuses[code] ?? 0) + count
    let highest = rssMb(limited)
    for (let i = 0; i < 10; i++) {
      await sleep(100)
      highest = Math.max(highest, rssMb(limited))
    }
    rss.push(highest)
    const after = await memory.afterGc()
    settled.push(after)
    log(
      `overload burst ${burst + 1}: ${JSON.stringify(result.statuses)}, p99 ${result.p99} ms, rss ${highest} MB, after a full GC rss ${after.rss} MB, heap ${after.heapUsed} MB`
    )
    if (heapDir !== undefined && snapshotAfter.has(burst + 1)) await snapshot()
  }
  memory.close()
  const half = Math.max(2, Math.floor(bursts / 2))
  const growthOf = (field: "rss" | "heapUsed") => {
    const earlier = median(settled.slice(1, half).map((m) => m[field]))
    const later = median(settled.slice(half).map((m) => m[field]))
    return (later - earlier) / earlier
  }
  const growth = growthOf("rss")
  const heapGrowth = growthOf("heapUsed")
  let heapNote = ""
  if (heapDir !== undefined) {
    const heaps = snapshotsIn(heapDir).map(summarize)
    const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1)
    heapNote = `; live heap MB after bursts ${[...snapshotAfter].join(", ")}: ${heaps.map((h) => mb(h.total)).join(" -> ")} (snapshots in ${heapDir.replace(`${root}/`, "")}); grew most from the first to the last: ${grewMost(heaps[0]!, heaps[heaps.length - 1]!).join(", ")}`
    log(`overload heap${heapNote}`)
  }
  const ok = other5xx === 0 && missingRetryAfter === 0 && growth < 0.1 && heapGrowth < 0.1
  rows.push({
    scenario: "6 overload",
    measure: `GET at 2x saturation (${Math.round(saturation * 2)}/s offered, ${connections * 4} connections, ${bursts} bursts)`,
    value: growth * 100,
    unit: `% RSS growth after a full GC, bursts 2-${half} -> ${half + 1}-${bursts}`,
    target: "only 2xx/429/503, Retry-After on each, no RSS or heap growth",
    met: ok,
    note: `statuses ${JSON.stringify(statuses)}; 5xx other than 503: ${other5xx}; 429/503 without Retry-After: ${missingRetryAfter}; heap growth after a full GC ${(heapGrowth * 100).toFixed(1)} %; MB idle: RSS ${idle.rss}, heap ${idle.heapUsed}; after each burst's full GC: RSS ${settled.map((m) => m.rss).join(" -> ")}, heap ${settled.map((m) => m.heapUsed).join(" -> ")}; highest RSS in the second after each burst ${rss.join(" -> ")}${heapNote}`
  })
  await limited.stop()
  return rows
}

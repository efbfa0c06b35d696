/**
 * `npm run bench [-- --quick] [-- --only=get,list,feed,upsert,imports,deep,media,tracing,overload,loader,loader-memory,pg-distance] [-- --profile]`
 * `[-- --overload-bursts=6] [-- --heap-snapshots]`
 * (`loader-memory`, over a generated 1 GiB input, and `pg-distance` (pgDistance.ts) run only when named. `--heap-snapshots` writes the
 * overload server's heap after its first, middle and last burst and lists what grew; the snapshots
 * themselves raise its RSS.)
 *
 * Starts the real server and baseline servers as child processes on loopback, drives them with
 * autocannon from this process (no pipelining, fixed connections), alternates the servers round by
 * round and reports the median of the paired ratios. Prints a table and writes bench/results/<time>.json.
 * Timing never fails anything: targets are recorded, not asserted.
 *
 * This module only wires the run: options.ts reads the command line, mainServer.ts sets up the server
 * most scenarios share, one module per scenario measures (reads, writes, imports, importsPg, depth,
 * media, overload, tracing, loader, pgDistance), measuring.ts and processes.ts are their harness, and
 * report.ts prints and writes what they found.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { scenarioDepth } from "./depth.js"
import { scenarioImports } from "./imports.js"
import { scenarioImportsPg } from "./importsPg.js"
import { scenarioLoader, scenarioLoaderMemory } from "./loader.js"
import { machine } from "./machine.js"
import { startMainServer } from "./mainServer.js"
import { scenarioMedia } from "./media.js"
import { connections, only, plan, profile, quick, root, wanted } from "./options.js"
import { scenarioOverload } from "./overload.js"
import { scenarioPgDistance } from "./pgDistance.js"
import { children, serverArgs, start } from "./processes.js"
import { scenarioReads } from "./reads.js"
import { log, rows, started, warnings, writeReport } from "./report.js"
import { scenarioTracing } from "./tracing.js"
import { scenarioWrites } from "./writes.js"

const main = async () => {
  if (!existsSync(join(root, "packages/server/dist/cli.js")))
    throw new Error("build the server first: npm run build -w @catalog-sync/server")
  const resultsDir = join(root, "bench/results")
  mkdirSync(resultsDir, { recursive: true })
  const stamp = new Date().toISOString().replace(/[:.]/g, "-")
  const profileDir = profile ? join(resultsDir, `profiles-${stamp}`) : undefined
  const work = mkdtempSync(join(tmpdir(), "catalog-sync-bench-"))
  const facts: Record<string, unknown> = { ...machine(), mode: quick ? "quick" : "full", plan, connections }
  log(`mode ${facts.mode}; ${facts.cores} cores; node ${process.version}; data under ${work}`)
  const finish = () => {
    facts.duration_seconds = Math.round((Date.now() - started) / 1000)
    if (profileDir !== undefined) facts.profiles = profileDir
    writeReport(resultsDir, stamp, facts)
  }

  try {
    // Scenario 10 has a database and servers of its own and runs only when named; named alone, the main
    // server is not even set up.
    if (only?.includes("pg-distance") === true) {
      rows.push(
        ...(await scenarioPgDistance({
          root,
          work,
          quick,
          log,
          warn: (message) => void warnings.push(message),
          startServer: (name, env) => start(name, serverArgs(undefined), env)
        }))
      )
      if (only.every((name) => name === "pg-distance")) return finish()
    }
    const main = await startMainServer(work, profileDir, facts)

    let getSaturation = Number.NaN
    if (wanted("get") || wanted("list") || wanted("feed")) {
      const reads = await scenarioReads(main)
      rows.push(...reads.rows)
      getSaturation = reads.getSaturation
    }
    if (wanted("upsert")) rows.push(...(await scenarioWrites(main)))
    if (wanted("imports")) rows.push(...(await scenarioImports(main)))
    if (wanted("imports") || wanted("imports-pg")) rows.push(...(await scenarioImportsPg(main)))

    const loaderContext = {
      root,
      work,
      quick,
      log,
      startServer: (name: string, env: Record<string, string>) => start(name, serverArgs(undefined), env)
    }
    if (wanted("loader")) rows.push(...(await scenarioLoader(loaderContext)))
    if (only?.includes("loader-memory") === true) rows.push(...(await scenarioLoaderMemory(loaderContext)))

    if (wanted("deep")) rows.push(...(await scenarioDepth(main)))
    if (wanted("media")) rows.push(...(await scenarioMedia(main)))
    if (wanted("tracing")) rows.push(...(await scenarioTracing(main)))
    if (wanted("overload")) rows.push(...(await scenarioOverload(main, getSaturation, resultsDir, stamp)))

    await main.server.stop()
    finish()
  } finally {
    for (const child of children) await child.stop()
    rmSync(work, { recursive: true, force: true })
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`)
  for (const child of children) child.process.kill("SIGKILL")
  process.exit(1)
})

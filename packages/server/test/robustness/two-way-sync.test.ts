import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestServer, TestServerWith, testDatabase } from "../TestServer.js"
import { random, scaled, seed, soak } from "./Soak.js"
import { Connector, type Counters, Crash, type Doc, droppingFetch, makeClient, type Persisted } from "./SyncSim.js"

// The documented rate limits have their own tests; two busy connectors would only be paced by them.
const Server = TestServerWith({}, { BENCHMARK_RATE_LIMIT_MULTIPLIER: "1000" })

const scopes = ["catalog:read", "catalog:write"]

layer(Server, { excludeTestServices: true, timeout: 60_000 })(`two-way sync simulation on ${testDatabase}`, (it) => {
  it.effect(
    "two connectors with concurrent edits, dropped responses and crashes end with identical catalogs and no echo loop",
    () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const used = seed(7_2026)
        const rounds = scaled(25, 200)
        console.log(`two-way sync: seed ${used}, ${rounds} rounds of edits (SOAK_SEED=${used} replays the choices)`)
        const next = random(used)
        const t = yield* tenant()
        const keyA = yield* t.key(scopes)
        const keyB = yield* t.key(scopes, { connectionId: yield* t.newConnection })
        const checker = yield* t.key(scopes)
        const faults = { dropped: 0 }
        let dropRate = 0.2
        let networkFailures = 0

        /** A side: its durable source system and disk, and the connector process currently running on them. */
        const side = async (prefix: string, apiKey: string) => {
          const client = await makeClient({
            baseUrl: url,
            apiKey,
            fetch: droppingFetch(() => next() < dropRate, faults)
          })
          const source = new Map<string, Doc>()
          const disk: { persisted: Persisted } = { persisted: { cursor: undefined, entries: {} } }
          const counters: Counters = { writes: 0, applied: 0, crashes: 0 }
          const s = {
            prefix,
            source,
            counters,
            created: 0,
            process: new Connector(prefix, client, source, disk, counters)
          }
          const restart = () => void (s.process = new Connector(prefix, client, source, disk, counters))
          return Object.assign(s, { restart })
        }
        const sides = yield* Effect.promise(() => Promise.all([side("a", keyA), side("b", keyB)]))

        const names = ["Sofas", "Chairs", "Tables", "Beds"]
        const edit = (s: (typeof sides)[number]) => {
          const existing = Array.from(s.source.keys())
          if (existing.length === 0 || next() < 0.25) {
            s.source.set(`${s.prefix}-${++s.created}`, { name: names[Math.floor(next() * names.length)]! })
            return
          }
          const ext = existing[Math.floor(next() * existing.length)]!
          const doc = s.source.get(ext)!
          s.source.set(
            ext,
            next() < 0.5
              ? { ...doc, name: names[Math.floor(next() * names.length)]! }
              : { ...doc, description: `by ${s.prefix} ${Math.floor(next() * 3)}` }
          )
        }

        /** Both connectors run a cycle at once; a crashed one is restarted from what it persisted. */
        const cycleBoth = (crashes: boolean) =>
          Effect.all(
            sides.map((s) => {
              if (crashes && next() < 0.3) s.process.crashIn = 1 + Math.floor(next() * 4)
              return s.process.cycle().pipe(
                Effect.catch((error) => {
                  // A crash, or a request that failed even after the client's retries: the process ends.
                  if (error instanceof Crash) s.counters.crashes++
                  else {
                    expect(error._tag).toBe("NetworkError")
                    networkFailures++
                  }
                  s.restart()
                  return Effect.succeed(0)
                })
              )
            }),
            { concurrency: 2 }
          )

        for (let round = 0; round < rounds; round++) {
          for (const s of sides) for (let e = Math.floor(next() * 4); e > 0; e--) edit(s)
          yield* cycleBoth(true)
        }

        // Edits stop. Faults go on (dropped responses) until quiescence; crashes stop.
        const writesAtStop = sides.reduce((n, s) => n + s.counters.writes, 0)
        let quietRounds = 0
        let settleRounds = 0
        while (quietRounds < 2) {
          settleRounds++
          expect(settleRounds, "quiescence within 10 rounds").toBeLessThanOrEqual(10)
          const before = sides.map((s) => s.counters.writes + s.counters.applied)
          yield* cycleBoth(false)
          quietRounds = sides.every((s, i) => s.counters.writes + s.counters.applied === before[i])
            ? quietRounds + 1
            : 0
        }
        const writesAfterStop = sides.reduce((n, s) => n + s.counters.writes, 0) - writesAtStop

        // Edits without a clash are never lost: one last edit on each side, to different records, reaches both.
        const [sideA, sideB] = sides as [(typeof sides)[number], (typeof sides)[number]]
        const [extA] = Array.from(sideA.source.keys()).filter((ext) => ext.startsWith("a-"))
        const [extB] = Array.from(sideB.source.keys()).filter((ext) => ext.startsWith("b-"))
        sideA.source.set(extA!, { ...sideA.source.get(extA!)!, name: "Last edit by a" })
        sideB.source.set(extB!, { ...sideB.source.get(extB!)!, description: "Last edit by b" })
        for (let i = 0; i < 3; i++) yield* cycleBoth(false)
        dropRate = 0
        yield* cycleBoth(false)

        // Both sides and the server hold the same catalog.
        const client = yield* Effect.promise(() =>
          makeClient({ baseUrl: url, apiKey: checker, fetch: globalThis.fetch })
        )
        const server = new Map<string, Doc>()
        for (const record of (yield* client.exportAll("categories")).records) {
          server.set(record.id, {
            name: record.name,
            ...(typeof record.description === "string" ? { description: record.description } : {})
          })
        }
        const [a, b] = sides.map((s) => s.process.catalog())
        const sorted = (m: Map<string, Doc>) => Array.from(m).sort(([x], [y]) => (x < y ? -1 : 1))
        expect(sorted(a!)).toEqual(sorted(server))
        expect(sorted(b!)).toEqual(sorted(server))
        expect(Array.from(server.values()).filter((d) => d.name === "Last edit by a")).toHaveLength(1)
        expect(Array.from(server.values()).filter((d) => d.description === "Last edit by b")).toHaveLength(1)
        // Every record created on either side exists: nothing was lost or duplicated.
        expect(server.size).toBe(sides.reduce((n, s) => n + s.created, 0))
        // No echo loop: after the edits stopped, at most one push per record and side to settle.
        expect(writesAfterStop).toBeLessThanOrEqual(2 * server.size)
        const figures = {
          records: server.size,
          writes: sides.map((s) => s.counters.writes),
          applied: sides.map((s) => s.counters.applied),
          crashes: sides.map((s) => s.counters.crashes),
          droppedResponses: faults.dropped,
          networkFailures,
          writesAfterEditsStopped: writesAfterStop,
          settleRounds
        }
        console.log(`two-way sync: ${JSON.stringify(figures)}`)
        expect(faults.dropped).toBeGreaterThan(0)
        expect(sides.some((s) => s.counters.crashes > 0)).toBe(true)
      }),
    soak ? 900_000 : 60_000
  )
})

import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { testDatabase } from "../TestServer.js"
import { type Attempt, checkHistory, type LogicalWrite } from "./History.js"
import {
  createRecords,
  type HistoryClient,
  learn,
  nextWrite,
  observe,
  OneServer,
  outcomeOf,
  postgresInstances,
  send,
  Target,
  type Wire
} from "./HistoryTarget.js"
import { sendCutOff } from "./RawSend.js"
import { random, scaled, seed } from "./Soak.js"

const records = ["k0", "k1", "k2", "k3"]

/** Share of attempts whose client cuts them off; a write is cut off at most three times in a row. */
const cutShare = 0.3
/**
 * How long after its last cut-off a write may still be refused as in progress: the cut-off request's
 * remaining work (milliseconds) and a margin for a loaded machine, far below the claim lease (60 s). The
 * attempt that settles it must be sent within this; its own time to answer is not counted.
 */
const refusedBound = 2_000
/** A write still refused this long after its cut-off is given up (a claim left to its lease would hold 60 s). */
const giveUpAfter = 5_000

const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0

/** Still running elsewhere or database busy: the client tries again with the same key. */
const unsettled = (outcome: Attempt) =>
  outcome.type === "fail" && (outcome.code === "idempotency_in_progress" || outcome.status === 503)

/**
 * Clients update a few records with revisioned upserts, each write under its own Idempotency-Key, and cut
 * 30% of their attempts off (0-30 ms after sending, or mid-body) as a client on a flaky network does; they
 * retry at once with the same key and body, again on `idempotency_in_progress` or 503. Every write must
 * settle (an answer or a replay) by an attempt sent within `refusedBound` of its last cut-off, never after
 * the claim's lease, and the history (no key executed twice, no acknowledged write lost, the feed
 * complete) must hold.
 */
const run = (clients: number, writesPerClient: number, label: string) =>
  Effect.gen(function* () {
    const { keys, urls } = yield* Target
    const used = seed(24_2026)
    console.log(
      `client cut-offs (${label}): seed ${used}, ${clients} clients x ${writesPerClient} writes (SOAK_SEED=${used} replays the choices)`
    )
    const tokens = yield* keys(clients)
    const admin = tokens[0]!
    const created = yield* createRecords(urls, admin, records, `cut-create-${used}`)

    const writes: Array<LogicalWrite> = []
    const busy = { count: 0 }
    const counts = { cutAfterSend: 0, cutMidBody: 0, answeredBeforeCut: 0, refusedInProgress: 0, retriedBusy: 0 }
    // Per write settled after a cut-off: how long it was refused, and how long until its answer arrived.
    const refusedTimes: Array<number> = []
    const settleTimes: Array<number> = []
    const late: Array<string> = []
    const client = (c: number) =>
      Effect.promise(async () => {
        const me: HistoryClient = { c, next: random(used + c), token: tokens[c]!, known: new Map() }
        const next = me.next
        for (let w = 0; w < writesPerClient; w++) {
          const { body, record, write } = await nextWrite(
            me,
            w,
            urls[(c + w) % urls.length]!,
            created.ids,
            `cut-${used}`,
            busy
          )
          writes.push(write)
          let lastCut: number | undefined
          for (let n = 0; ; n++) {
            const url = urls[(c + w + n) % urls.length]!
            const cut =
              n < 3 && next() < cutShare ? { afterMillis: Math.floor(next() * 31), midBody: next() < 0.25 } : undefined
            const invokedAt = performance.now()
            let reply: Wire | undefined
            if (cut === undefined) {
              reply = await send(url, me.token, "POST", "/categories/upsert", body, write.key, 10_000)
              if (reply === undefined)
                throw new Error(`key ${write.key}: an attempt nobody cut off was not answered within 10 s`)
            } else {
              const headers = {
                authorization: `Bearer ${me.token}`,
                "content-type": "application/json",
                "idempotency-key": write.key
              }
              const raw = await sendCutOff(url, "POST", "/api/v1/categories/upsert", headers, JSON.stringify(body), cut)
              reply = raw === undefined ? undefined : { status: raw.status, body: JSON.parse(raw.text) }
            }
            const completedAt = performance.now()
            if (reply === undefined) {
              write.attempts.push({ type: "unknown", invokedAt })
              if (cut?.midBody) counts.cutMidBody++
              else counts.cutAfterSend++
              lastCut = completedAt
              continue
            }
            if (cut !== undefined) counts.answeredBeforeCut++
            const outcome = outcomeOf(reply, invokedAt, completedAt)
            write.attempts.push(outcome)
            learn(me, record, outcome)
            const refusedFor = lastCut === undefined ? 0 : invokedAt - lastCut
            if (!unsettled(outcome)) {
              if (lastCut !== undefined) {
                refusedTimes.push(refusedFor)
                settleTimes.push(completedAt - lastCut)
              }
              if (refusedFor > refusedBound)
                late.push(`key ${write.key}: refused for ${Math.round(refusedFor)} ms after its last cut-off`)
              break
            }
            if (outcome.type === "fail" && outcome.status === 503) counts.retriedBusy++
            else counts.refusedInProgress++
            if (refusedFor > giveUpAfter) {
              late.push(`key ${write.key}: still refused ${Math.round(refusedFor)} ms after its last cut-off`)
              break
            }
            await sleep(5 + Math.floor(next() * 20))
          }
        }
      })
    yield* Effect.all(
      Array.from({ length: clients }, (_, c) => client(c)),
      { concurrency: "unbounded" }
    )
    // Requests cut off while still running on the server: let them finish before reading the outcome.
    yield* Effect.sleep("500 millis")

    const { figures, violations } = checkHistory(writes, yield* observe(urls, admin, created, busy))
    const spread = (times: ReadonlyArray<number>) => {
      const sorted = [...times].sort((a, b) => a - b)
      return {
        p50: Math.round(percentile(sorted, 0.5)),
        p99: Math.round(percentile(sorted, 0.99)),
        max: Math.round(sorted.at(-1) ?? 0)
      }
    }
    const afterCut = {
      writes: settleTimes.length,
      refusedMillis: spread(refusedTimes),
      settledMillis: spread(settleTimes)
    }
    console.log(`client cut-offs (${label}): ${JSON.stringify({ ...counts, afterCut, late: late.length, ...figures })}`)
    expect(late).toEqual([])
    expect(violations).toEqual([])
    // The run exercised what it checks: cut-offs of both kinds, writes that settled after them, applied writes.
    expect(counts.cutAfterSend).toBeGreaterThan(0)
    expect(counts.cutMidBody).toBeGreaterThan(0)
    expect(afterCut.writes).toBeGreaterThan(clients)
    expect(figures.ok).toBeGreaterThan(records.length)
  })

const checks =
  "every write cut off is refused for at most 2 s, then settles; each key executed once, no acknowledged write lost"

if (testDatabase === "sqlite") {
  layer(OneServer, { excludeTestServices: true, timeout: 60_000 })("client cut-offs on one server (SQLite)", (it) => {
    it.effect(checks, () => run(scaled(4, 16), scaled(14, 60), "one server, SQLite"), scaled(120_000, 900_000))
  })
} else {
  // Two server processes as `npm start` runs them, reaching PostgreSQL across 1 ms of network each way, so
  // that a cut-off can land while a statement is on its way, as in a deployment. The first test sends to
  // the first process only.
  layer(postgresInstances(2, { latencyMillis: 1 }), { excludeTestServices: true, timeout: 180_000 })(
    "client cut-offs on PostgreSQL",
    (it) => {
      const on = (count: number, label: string) =>
        Effect.flatMap(Target, (target) =>
          run(scaled(4, 16), scaled(14, 60), label).pipe(
            Effect.provideService(Target, { ...target, urls: target.urls.slice(0, count) })
          )
        )
      it.effect(`one server process: ${checks}`, () => on(1, "one server, PostgreSQL"), scaled(120_000, 900_000))
      it.effect(
        `two server processes, the clients spread over both: ${checks}`,
        () => on(2, "2 instances on PostgreSQL"),
        scaled(120_000, 900_000)
      )
    }
  )
}

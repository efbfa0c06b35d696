import { unavailableReason } from "@catalog-sync/adapter-pg/testing"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { type Attempt, checkHistory, type LogicalWrite } from "./History.js"
import {
  createRecords,
  type HistoryClient,
  learn,
  nextWrite,
  observe,
  OneServer,
  outcomeOf,
  send,
  Target,
  TwoPostgresInstances
} from "./HistoryTarget.js"
import { random, scaled, seed } from "./Soak.js"

const records = ["r0", "r1", "r2"]

/**
 * Many clients update a few records at once. Each reads a record (sometimes it keeps a revision it read
 * earlier, so that it races and conflicts), writes a value of its own with that expected_revision, and
 * waits a short random time: a client that gives up retries the same request with the same key, up to
 * three times. Afterwards the history is checked against the records and the whole change feed.
 */
const run = (clients: number, writesPerClient: number, label: string) =>
  Effect.gen(function* () {
    const { urls, keys } = yield* Target
    const used = seed(11_2026)
    console.log(
      `concurrency history (${label}): seed ${used}, ${clients} clients x ${writesPerClient} writes (SOAK_SEED=${used} replays the choices)`
    )
    const tokens = yield* keys(clients)
    const admin = tokens[0]!
    const created = yield* createRecords(urls, admin, records, `create-${used}`)

    const writes: Array<LogicalWrite> = []
    const busy = { count: 0 }
    const replayed = { sent: false }
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
            `history-${used}`,
            busy
          )
          writes.push(write)
          const attempt = async (n: number, timeout: number) => {
            const invokedAt = performance.now()
            const reply = await send(
              urls[(c + w + n) % urls.length]!,
              me.token,
              "POST",
              "/categories/upsert",
              body,
              write.key,
              timeout
            )
            const outcome: Attempt =
              reply === undefined ? { type: "unknown", invokedAt } : outcomeOf(reply, invokedAt, performance.now())
            if (outcome.type === "fail" && outcome.status === 503) busy.count++
            write.attempts.push(outcome)
            learn(me, record, outcome)
            return outcome
          }
          for (let n = 0; n < 3; n++) {
            // Short waits leave some outcomes unknown; the last attempt waits long enough to be answered.
            const outcome = await attempt(n, n === 2 ? 10_000 : [3, 8, 20, 10_000][Math.floor(next() * 4)]!)
            // Settled, or else unknown, still running elsewhere (idempotency_in_progress) or database busy
            // (503, rolled back): then the client tries again with the same key.
            if (
              outcome.type === "ok" ||
              (outcome.type === "fail" && outcome.code !== "idempotency_in_progress" && outcome.status !== 503)
            )
              break
            await new Promise((resolve) => setTimeout(resolve, Math.floor(next() * 10)))
          }
          // Some clients send an acknowledged write once more, as one that lost the answer would: a replay
          // (the first acknowledged write of the run always, so that every run checks at least one).
          if (write.attempts.some((a) => a.type === "ok") && (next() < 0.15 || !replayed.sent)) {
            replayed.sent = true
            await attempt(3, 10_000)
          }
        }
      })
    yield* Effect.all(
      Array.from({ length: clients }, (_, c) => client(c)),
      { concurrency: "unbounded" }
    )
    // Requests the clients gave up on may still be running on the server: let them finish.
    yield* Effect.sleep("500 millis")

    const observed = yield* observe(urls, admin, created, busy)
    const { violations, figures } = checkHistory(writes, observed)
    const codes: Record<string, number> = {}
    for (const attempt of writes.flatMap((w) => w.attempts))
      if (attempt.type === "fail") codes[attempt.code] = (codes[attempt.code] ?? 0) + 1
    console.log(`concurrency history (${label}): ${JSON.stringify({ ...figures, busy: busy.count, codes })}`)
    expect(violations).toEqual([])
    // The run exercised what it checks: conflicts, unknown outcomes and replays.
    expect(figures.ok).toBeGreaterThan(records.length)
    expect(figures.fail).toBeGreaterThan(0)
    expect(figures.unknown).toBeGreaterThan(0)
    expect(figures.replays).toBeGreaterThan(0)
    return figures
  })

layer(OneServer, { excludeTestServices: true, timeout: 60_000 })("concurrency history on one server (SQLite)", (it) => {
  it.effect(
    "no acknowledged write lost, one revision chain per record, the feed complete and once, each key executed once",
    () => Effect.asVoid(run(scaled(8, 24), scaled(12, 80), "SQLite")),
    scaled(60_000, 900_000)
  )
})

const skip = unavailableReason()
describe.skipIf(skip !== undefined)("concurrency history on PostgreSQL", () => {
  layer(TwoPostgresInstances, { excludeTestServices: true, timeout: 180_000 })(
    "two server processes on one PostgreSQL database",
    (it) => {
      it.effect(
        "the same checks with the clients spread over both instances",
        () => Effect.asVoid(run(scaled(8, 24), scaled(12, 80), "2 instances on PostgreSQL")),
        scaled(120_000, 900_000)
      )
    }
  )
})

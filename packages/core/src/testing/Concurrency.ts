/**
 * Concurrent write schedules: a few connections' lanes of writes to the same records, run at once against
 * a `Target`. Each lane reads a revision (or keeps the one it saw last, so that it races) and writes with
 * it: a category renamed, stock put in. Afterwards the feed gives the order the writes committed in, and
 * the accepted writes replayed in that order on the reference model must give each its answer (revision,
 * stock before and after) and the final state; every refused write must be a revision conflict.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import type { Answer } from "./Probe.js"
import { emptyFigures, type Figures, readFeed, Run, verify } from "./ModelRun.js"
import type { StockAnswer, Target, WriteAnswer } from "./ModelTarget.js"
import type { ActorName } from "./ReferenceModel.js"
import { assertProperty, pause, type ReplayOptions, runs, seedOf } from "./Replay.js"

/** One write of a concurrent schedule. */
export interface ConcurrentStep {
  /** A category renamed (`c0`, `c1`) or stock put into product `p0`. */
  readonly target: "c0" | "c1" | "p0"
  /** Stock put in (1-9). */
  readonly quantity: number
  /** Read the current revision first; else write with the one this lane saw last (and race). */
  readonly readFirst: boolean
}

/** Lanes of steps, each lane a connection's writes in order; the lanes run at once. */
export type Schedule = ReadonlyArray<ReadonlyArray<ConcurrentStep>>

/** Schedules of 2-4 lanes of writes: the lanes run at once, the steps of a lane in order. */
export const concurrentSchedule: fc.Arbitrary<Schedule> = fc.array(
  fc.array(
    fc.record({
      target: fc.constantFrom<ConcurrentStep["target"]>("c0", "c1", "p0"),
      quantity: fc.integer({ min: 1, max: 9 }),
      readFirst: fc.boolean()
    }),
    { minLength: 1, maxLength: 4 }
  ),
  { minLength: 2, maxLength: 4 }
)

interface Attempt {
  readonly lane: number
  readonly step: number
  readonly target: ConcurrentStep["target"]
  readonly sent: { readonly revision: number; readonly name?: string; readonly quantity?: string }
  readonly answer: Answer<WriteAnswer | StockAnswer>
}

const lanesActor: ActorName = "a1"

/** Runs `schedule` in a new session and checks it against the model; fails with a `ModelMismatch` (a defect). */
export const runSchedule = (target: Target, schedule: Schedule, figures: Figures = emptyFigures()) =>
  Effect.gen(function* () {
    const session = yield* Effect.orDie(target.begin)
    const run = new Run(session, figures)
    const location = session.locationOf("A")
    const accept = <A>(what: string, answer: Answer<A>) => run.accepted(what, answer)
    // The records the lanes race on, written first and applied to the model.
    for (const ext of ["c0", "c1"]) {
      const planned = run.model.planUpsert(lanesActor, { resource: "categories", externalId: ext, name: "start" })
      const value = accept(
        `create ${ext}`,
        yield* run.call(session.upsert(lanesActor, "categories", { external_id: ext, name: "start" }, run.key()))
      )
      planned.commit(value.record.id)
    }
    const product = { resource: "products" as const, externalId: "p0", name: "start", link: { externalId: "c0" } }
    const plannedProduct = run.model.planUpsert(lanesActor, product)
    const created = accept(
      "create p0",
      yield* run.call(session.upsert(lanesActor, "products", run.bodyOf(product), run.key()))
    )
    plannedProduct.commit(created.record.id)
    yield* readFeed(run, "setup", lanesActor, 100)
    const productId = created.record.id

    const lane = (steps: ReadonlyArray<ConcurrentStep>, laneIndex: number) =>
      Effect.gen(function* () {
        const seen = { c0: 1, c1: 1, p0: 0 }
        const attempts: Array<Attempt> = []
        for (const [stepIndex, step] of steps.entries()) {
          if (step.target === "p0") {
            if (step.readFirst) {
              const cards = accept("read stock", yield* run.call(session.inventory(lanesActor)))
              seen.p0 = cards.find((c) => c.source_id === productId)?.balances[0]?.revision ?? 0
            }
            const body = {
              event_id: globalThis.crypto.randomUUID(),
              source_kind: "product",
              source_id: productId,
              location_id: location,
              action: "in",
              quantity: String(step.quantity),
              revision: seen.p0,
              note: `lane ${laneIndex} step ${stepIndex}`
            }
            const answer = yield* run.call(session.stock(lanesActor, body, run.key()))
            attempts.push({
              lane: laneIndex,
              step: stepIndex,
              target: "p0",
              sent: { revision: seen.p0, quantity: body.quantity },
              answer
            })
            if (answer._tag === "Accepted") seen.p0 = answer.value.event.revision
          } else {
            const id = run.model.mapped(lanesActor, "categories", step.target)!.id
            if (step.readFirst)
              seen[step.target] = accept("read", yield* run.call(session.get(lanesActor, "categories", id))).revision
            const name = `lane ${laneIndex} step ${stepIndex}`
            const answer = yield* run.call(
              session.upsert(
                lanesActor,
                "categories",
                { external_id: step.target, name, expected_revision: seen[step.target] },
                run.key()
              )
            )
            attempts.push({
              lane: laneIndex,
              step: stepIndex,
              target: step.target,
              sent: { revision: seen[step.target], name },
              answer
            })
            if (answer._tag === "Accepted") seen[step.target] = answer.value.record.revision
          }
        }
        return attempts
      })

    const attempts = (yield* Effect.all(schedule.map(lane), { concurrency: "unbounded" })).flat()
    const what = (a: Attempt) => `lane ${a.lane} step ${a.step} (${a.target}, revision ${a.sent.revision})`
    // The feed, read as an ordinary reader would, is the order the writes committed in.
    const feed: Array<{ readonly id: string; readonly revision: number }> = []
    let cursor = run.cursors[lanesActor]
    for (let more = true; more;) {
      const page = accept("feed", yield* run.call(session.feed(lanesActor, cursor, 100)))
      feed.push(...page.records.map((c) => ({ id: c.id, revision: c.revision })))
      cursor = page.next_cursor
      more = page.has_more
    }
    const idOf = (a: Attempt) =>
      a.target === "p0" ? undefined : run.model.mapped(lanesActor, "categories", a.target)!.id
    const committed = attempts
      .flatMap((a) => (a.answer._tag === "Accepted" ? [{ a, value: a.answer.value }] : []))
      .map(({ a, value }) => {
        const id = a.target === "p0" ? value.record.id : idOf(a)
        // A write to p0 answers its stock event, one to a category its record.
        const revision = "event" in value ? value.event.revision : value.record.revision
        const position = feed.findIndex((c) => c.id === id && c.revision === revision)
        if (position < 0) run.fail(what(a), `accepted at revision ${revision}, but the feed has no such change`)
        return { attempt: a, value, position }
      })
      .sort((x, y) => x.position - y.position)
    run.equal("the feed holds the accepted writes and nothing else", feed.length, committed.length)
    // Replayed in commit order, each accepted write gets from the model the answer it got.
    for (const { attempt: a, value } of committed) {
      if (a.target === "p0") {
        const planned = run.model.planStock(lanesActor, {
          source: { id: productId },
          action: "in",
          quantity: a.sent.quantity!,
          revision: a.sent.revision
        })
        const expected = run.expect(what(a), a.answer, planned.expected)
        if (planned.expected._tag === "Accepted") {
          const event =
            expected !== undefined && "event" in expected
              ? expected.event
              : run.fail(what(a), "accepted without its stock event")
          run.equal(
            `${what(a)}: stock before and after`,
            [event.physical_before, event.physical_after, event.revision],
            [planned.expected.value.before, planned.expected.value.after, planned.expected.value.revision]
          )
        }
        planned.commit(value.record.id)
      } else {
        const planned = run.model.planUpsert(lanesActor, {
          resource: "categories",
          externalId: a.target,
          name: a.sent.name,
          expectedRevision: a.sent.revision
        })
        run.expect(what(a), a.answer, planned.expected)
        if (planned.expected._tag === "Accepted") {
          const record = "event" in value ? run.fail(what(a), "a category write answered a stock event") : value.record
          run.equal(`${what(a)}: revision`, record.revision, planned.expected.value.revision)
        }
        planned.commit(value.record.id)
      }
    }
    for (const a of attempts)
      if (
        a.answer._tag === "Refused" &&
        (a.answer.code !== "revision_conflict" || a.answer.currentRevision === a.sent.revision)
      )
        run.fail(what(a), `refused with ${a.answer.code} (current_revision ${a.answer.currentRevision})`)
    yield* readFeed(run, "end of schedule", lanesActor, 100)
    yield* verify(run, "end of schedule", lanesActor, undefined)
    return figures
  })

export interface ConcurrencyOptions extends ReplayOptions {
  /** Schedules run (default 20), each in new companies. */
  readonly runs?: number | undefined
}

/** Runs generated schedules against `target`; fails at the first that no serial order of its accepted writes explains. */
export const checkConcurrency = (target: Target, options: ConcurrencyOptions = {}) =>
  Effect.gen(function* () {
    const figures = emptyFigures()
    const seed = seedOf(options)
    if (runs(options, "concurrency"))
      yield* assertProperty(
        "concurrency",
        fc.asyncProperty(concurrentSchedule, async (schedule) => {
          await pause()
          await Effect.runPromise(Effect.asVoid(runSchedule(target, schedule, figures)))
        }),
        { ...options, seed, numRuns: options.runs ?? 20 }
      )
    return { seed, ...figures }
  })

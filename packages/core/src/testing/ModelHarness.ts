/**
 * The model harness: generated command sequences run against a system under test (a `Target`: the use
 * cases over a layer of the ports, or a server over HTTP) and the reference model side by side. Every
 * answer is checked against the model's prediction (code, outcome, revision, ids, stock figures), and
 * after every command the acting connection's lists, the touched record, its stock cards and (when read)
 * its change feed must agree with the model. Each sequence runs in fresh companies, so a failing one can
 * be replayed and shrunk by fast-check.
 */
import { Effect } from "effect"
import { dependencyOrder, type PlannedRecord } from "../internal/Imports/ImportRunner.js"
import type { Command } from "./ModelCommands.js"
import { emptyFigures, expectedRevision, type Figures, nowhere, readFeed, Run, verify } from "./ModelRun.js"
import type { Json, StockAnswer, Target, WriteAnswer } from "./ModelTarget.js"
import {
  type ActorName,
  actorNames,
  actorSpecs,
  type CatalogModel,
  type Expected,
  type Link,
  type UpsertRequest
} from "./ReferenceModel.js"

export * from "./ModelCommands.js"
export * from "./ModelRun.js"
export type * from "./ModelTarget.js"

/** An upsert (or a bind): predicted, sent, checked and applied to the model. */
const upsert = (run: Run, what: string, actorName: ActorName, request: UpsertRequest) =>
  Effect.gen(function* () {
    const planned = run.model.planUpsert(actorName, request)
    const body = run.bodyOf(request)
    const key = run.key()
    const answer = yield* run.call(run.session.upsert(actorName, request.resource, body, key))
    const value = run.expect(what, answer, planned.expected)
    if (value !== undefined && planned.expected._tag === "Accepted") {
      const predicted = planned.expected.value
      run.equal(`${what}: outcome`, value.outcome, predicted.outcome)
      run.equal(`${what}: revision`, value.record.revision, predicted.revision)
      run.equal(`${what}: name`, value.record.name, predicted.name)
      run.equal(`${what}: external_id`, value.record.external_id, request.externalId)
      if (predicted.id !== undefined) run.equal(`${what}: id`, value.record.id, predicted.id)
      planned.commit(value.record.id)
      run.lastUpsert = { actor: actorName, resource: request.resource, body, key, answer: value }
    }
    const touched = value?.record.id ?? run.model.mapped(actorName, request.resource, request.externalId)?.id
    yield* verify(run, what, actorName, touched === undefined ? undefined : { resource: request.resource, id: touched })
  })

const stockWrite = (run: Run, what: string, c: Extract<Command, { kind: "stock" }>) =>
  Effect.gen(function* () {
    const source: Link = c.byId ? { id: run.idFor(c.actor, "products", c.ext) } : { externalId: c.ext }
    const product = run.model.resolve(c.actor, "products", source)
    const current = (product && run.model.cards.get(product.id)?.balance?.revision) ?? 0
    const request = { source, action: c.action, quantity: c.quantity, revision: c.right ? current : current + 1 }
    const planned = run.model.planStock(c.actor, request)
    const body = {
      event_id: globalThis.crypto.randomUUID(),
      source_kind: "product",
      source_id: run.wire(source),
      location_id: run.session.locationOf(actorSpecs[c.actor].company),
      action: c.action,
      quantity: c.quantity,
      revision: request.revision,
      note: "model harness"
    }
    const key = run.key()
    const answer = yield* run.call(run.session.stock(c.actor, body, key))
    const value = run.expect(what, answer, planned.expected)
    if (value === undefined || planned.expected._tag !== "Accepted") {
      yield* verify(run, what, c.actor, product === undefined ? undefined : { resource: "products", id: product.id })
      return
    }
    const predicted = planned.expected.value
    run.equal(`${what}: outcome`, value.outcome, predicted.outcome)
    if (predicted.cardId !== undefined) run.equal(`${what}: card id`, value.record.id, predicted.cardId)
    run.equal(
      `${what}: event`,
      [value.event.physical_before, value.event.physical_after, value.event.revision],
      [predicted.before, predicted.after, predicted.revision]
    )
    run.equal(`${what}: replayed`, value.replayed ?? false, false)
    planned.commit(value.record.id)
    run.equal(
      `${what}: card source`,
      [value.record.source_id, value.record.source_external_id],
      [product!.id, run.model.externalIdOf(c.actor, "products", product!.id)]
    )
    run.lastStock = { actor: c.actor, resource: "inventory", body, key, answer: value }
    yield* verify(run, what, c.actor, { resource: "products", id: product!.id })
  })

const replay = (run: Run, what: string, how: Extract<Command, { kind: "replay" }>["how"]) =>
  Effect.gen(function* () {
    const last = how === "upsert-same-key" ? run.lastUpsert : run.lastStock
    if (last === undefined) {
      run.figures.skipped++
      return
    }
    const otherBody = { ...last.body, note: "another body" }
    const send = (body: Json, key: string) =>
      run.call<WriteAnswer | StockAnswer>(
        how === "upsert-same-key"
          ? run.session.upsert(last.actor, last.resource, body, key)
          : run.session.stock(last.actor, body, key)
      )
    if (how === "stock-key-other-body") {
      run.expect(what, yield* send(otherBody, last.key), { _tag: "Refused", code: "idempotency_key_reused" })
    } else if (how === "stock-event-other-body") {
      run.expect(what, yield* send(otherBody, run.key()), { _tag: "Refused", code: "event_id_reused" })
    } else {
      const answer = yield* send(last.body, how === "stock-same-event" ? run.key() : last.key)
      const value = run.accepted(what, answer)
      run.equal(`${what}: replayed`, value.replayed, true)
      const { replayed: _a, ...again } = value
      const { replayed: _b, ...original } = last.answer
      run.equal(`${what}: the original answer`, again, original)
    }
    yield* verify(run, what, last.actor, undefined)
  })

/**
 * Import records apply in passes, in the server's dependency order (each after the records of the body it
 * references; otherwise categories before products, each in body order); an unresolved record waits.
 */
const importPasses = (
  model: CatalogModel,
  actorName: ActorName,
  requests: ReadonlyArray<UpsertRequest>,
  bodies: ReadonlyArray<Json>,
  idOf: (index: number) => string
): ReadonlyArray<Expected<{ readonly outcome: string }>> => {
  const results: Array<Expected<{ readonly outcome: string }>> = []
  let waiting = dependencyOrder(
    requests.map((request, index) => ({
      index,
      resource: request.resource,
      body: bodies[index] as PlannedRecord["body"],
      request
    }))
  )
  for (;;) {
    let progress = false
    const next: Array<(typeof waiting)[number]> = []
    for (const item of waiting) {
      const planned = model.planUpsert(actorName, item.request)
      results[item.index] = planned.expected
      if (planned.expected._tag === "Accepted") {
        planned.commit(idOf(item.index))
        progress = true
      } else if (planned.expected.code === "unresolved_reference") next.push(item)
    }
    if (!progress || next.length === 0) return results
    waiting = next
  }
}

const importRecords = (run: Run, what: string, c: Extract<Command, { kind: "import" }>) =>
  Effect.gen(function* () {
    const requests = c.items.map((item): UpsertRequest => {
      const stored = run.model.mapped(c.actor, item.resource, item.ext)
      return {
        resource: item.resource,
        externalId: item.ext,
        name: item.name,
        link: item.link === undefined ? undefined : { externalId: item.link },
        expectedRevision: expectedRevision(stored, item.right ? "right" : "stale")
      }
    })
    const bodies = requests.map((request) => run.bodyOf(request))
    const body = {
      ...(c.dryRun ? { dry_run: true } : {}),
      records: requests.map((request, i) => ({ resource: request.resource, body: bodies[i]! }))
    }
    const answer = yield* run.call(run.session.importRecords(c.actor, body, run.key()))
    const value = run.accepted(what, answer)
    const report = value.report
    if (report === null) return run.fail(what, "the import has no report")
    if (!c.dryRun) run.equal(`${what}: job state`, value.job?.state, "completed")
    run.equal(`${what}: dry_run`, report.dry_run, c.dryRun)
    const model = c.dryRun ? run.model.clone() : run.model
    const predictions = importPasses(model, c.actor, requests, bodies, (i) => report.records[i]?.id ?? `dry-run-${i}`)
    predictions.forEach((expected, i) => {
      const row = report.records[i]
      run.equal(
        `${what}: record ${i}`,
        [row?.index, row?.status, row?.status === "applied" ? row.outcome : row?.error?.code],
        [
          i,
          expected._tag === "Accepted" ? "applied" : "failed",
          expected._tag === "Accepted" ? expected.value.outcome : expected.code
        ]
      )
    })
    run.equal(`${what}: failed count`, report.failed, predictions.filter((p) => p._tag === "Refused").length)
    yield* verify(run, what, c.actor, undefined)
  })

const describeCommand = (c: Command): string => {
  const { kind, ...rest } = c
  return `${kind}(${Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" ")})`
}

const execute = (run: Run, c: Command): Effect.Effect<void> => {
  const what = describeCommand(c)
  switch (c.kind) {
    case "upsert": {
      const stored = run.model.mapped(c.actor, c.resource, c.ext)
      const link =
        c.resource === "categories"
          ? c.parent === undefined
            ? undefined
            : c.parent === null
              ? null
              : run.link(c.actor, c.parent.ext, c.parent.byId)
          : c.category === undefined
            ? undefined
            : run.link(c.actor, c.category.ext, c.category.byId)
      return upsert(run, what, c.actor, {
        resource: c.resource,
        externalId: c.ext,
        name: c.name,
        link,
        price: c.resource === "products" ? c.price : undefined,
        unit: c.resource === "products" ? c.unit : undefined,
        expectedRevision: expectedRevision(stored, c.revision)
      })
    }
    case "bind": {
      const targetId = run.model.mapped(c.target.actor, c.resource, c.target.ext)?.id ?? nowhere
      const stored = run.model.mapped(c.actor, c.resource, c.ext) ?? run.model.records.get(targetId)
      return upsert(run, what, c.actor, {
        resource: c.resource,
        externalId: c.ext,
        targetId,
        expectedRevision: stored?.revision ?? 0
      })
    }
    case "archive":
      return Effect.gen(function* () {
        const id = run.idFor(c.actor, "products", c.ext)
        const record = run.model.records.get(id)
        const expected = record === undefined ? 1 : c.right ? record.revision : record.revision + 1
        const planned = run.model.planArchive(c.actor, id, expected)
        const value = run.expect(
          what,
          yield* run.call(run.session.archive(c.actor, id, expected, run.key())),
          planned.expected
        )
        if (value !== undefined && planned.expected._tag === "Accepted") {
          run.equal(
            `${what}: answer`,
            [value.outcome, value.record.id, value.record.revision, value.record.state, value.record.external_id],
            [
              planned.expected.value.outcome,
              id,
              planned.expected.value.revision,
              "archived",
              run.model.externalIdOf(c.actor, "products", id)
            ]
          )
          planned.commit(id)
        }
        yield* verify(run, what, c.actor, record === undefined ? undefined : { resource: "products", id })
      })
    case "stock":
      return stockWrite(run, what, c)
    case "reserve":
      return Effect.gen(function* () {
        const product = run.model.mapped(c.actor, "products", c.ext)
        const card = product && run.model.cards.get(product.id)
        if (product === undefined || card === undefined) {
          run.figures.skipped++
          return
        }
        const planned = run.model.planReserve(product.id, c.reserved)
        const value = run.accepted(
          what,
          yield* run.call(run.session.reserve(actorSpecs[c.actor].company, card.id, c.reserved))
        )
        const balance = planned.expected._tag === "Accepted" ? planned.expected.value : undefined
        run.equal(
          `${what}: balance`,
          value.balances.map((b) => [b.physical, b.reserved, b.revision]),
          [[balance?.physical, balance?.reserved, balance?.revision]]
        )
        planned.commit(card.id)
        yield* verify(run, what, c.actor, undefined)
      })
    case "replay":
      return replay(run, what, c.how)
    case "import":
      return importRecords(run, what, c)
    case "feed":
      return Effect.gen(function* () {
        yield* readFeed(run, what, c.actor, c.limit)
        run.figures.commands++
      })
  }
}

/**
 * Runs one command sequence in a new session against the model; fails with a `ModelMismatch` (as a
 * defect) at the first disagreement. Ends by reading every actor's feed to its end and checking every
 * actor's view.
 */
export const runSequence = (target: Target, sequence: ReadonlyArray<Command>, figures: Figures = emptyFigures()) =>
  Effect.gen(function* () {
    const session = yield* Effect.orDie(target.begin)
    const run = new Run(session, figures)
    for (const c of sequence) yield* execute(run, c)
    for (const actorName of actorNames) {
      yield* readFeed(run, `end of sequence`, actorName, 100)
      yield* verify(run, "end of sequence", actorName, undefined)
    }
    return figures
  })

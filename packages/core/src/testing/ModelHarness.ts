/**
 * The model harness: generated command sequences run against a system under test (a `Target`: the use
 * cases over a layer of the ports, or a server over HTTP) and the reference model side by side. Every
 * answer is checked against the model's prediction (code, outcome, revision, ids, stock figures), and
 * after every command the acting connection's lists, the touched record, its stock cards and (when read)
 * its change feed must agree with the model. Each sequence runs in fresh companies, so a failing one can
 * be replayed and shrunk by fast-check.
 */
import { Effect, FastCheck as fc } from "effect"
import * as ChangeCursor from "../Changes/ChangeCursor.js"
import type { Answer } from "./Probe.js"
import {
  type ActorName,
  actorNames,
  actorSpecs,
  CatalogModel,
  type CompanyName,
  type Expected,
  type Link,
  type ModelRecord,
  platformOrigin,
  type UpsertRequest
} from "./ReferenceModel.js"

type Json = any

/** A connection's view of the API, as the harness drives it. Every write carries an Idempotency-Key. */
export interface Session {
  /** The connection id of an actor (the feed's origin_connection_id of its writes). */
  readonly connectionOf: (actor: ActorName) => string
  /** The stock location of a company. */
  readonly locationOf: (company: CompanyName) => string
  /** POST /{resource}/upsert: `{outcome, record, replayed?}`. */
  readonly upsert: (actor: ActorName, resource: string, body: Json, key: string) => Effect.Effect<Answer<Json>>
  /** DELETE /products/{id}: `{outcome, record}`. */
  readonly archive: (actor: ActorName, id: string, expectedRevision: number, key: string) => Effect.Effect<Answer<Json>>
  /** POST /inventory: `{outcome, record, event, replayed?}`. */
  readonly stock: (actor: ActorName, body: Json, key: string) => Effect.Effect<Answer<Json>>
  /** The platform sets the reserved quantity of a card's balance at the company's location: the card. */
  readonly reserve: (company: CompanyName, cardId: string, reserved: string) => Effect.Effect<Answer<Json>>
  /** POST /imports, processed to its end unless a dry run: `{job: {state} | null, report}`. */
  readonly importRecords: (actor: ActorName, body: Json, key: string) => Effect.Effect<Answer<Json>>
  /** GET /changes: `{records, next_cursor, has_more}`. */
  readonly feed: (actor: ActorName, cursor: string | undefined, limit: number) => Effect.Effect<Answer<Json>>
  /** GET /{resource}?limit=100 (and external_id): the records. */
  readonly list: (actor: ActorName, resource: string, externalId?: string) => Effect.Effect<Answer<ReadonlyArray<Json>>>
  /** GET /{resource}/{id}: the record. */
  readonly get: (actor: ActorName, resource: string, id: string) => Effect.Effect<Answer<Json>>
  /** GET /inventory?limit=100: the cards. */
  readonly inventory: (actor: ActorName) => Effect.Effect<Answer<ReadonlyArray<Json>>>
}

/** A system under test: each `begin` makes two new companies (A with connections a1 and a2, B with b1). */
export interface Target {
  readonly begin: Effect.Effect<Session, unknown>
}

// ---------------------------------------------------------------------------------------------------------
// Commands

export type RevisionChoice = "right" | "stale" | "omit"
export type Categories = "c0" | "c1" | "c2"
export type Products = "p0" | "p1" | "p2"

export type Command =
  | {
      readonly kind: "upsert"
      readonly actor: ActorName
      readonly resource: "categories"
      readonly ext: Categories
      readonly name?: string
      /** The parent: by `{external_id}` or by uuid; null clears it. */
      readonly parent?: { readonly ext: Categories; readonly byId: boolean } | null
      readonly revision: RevisionChoice
    }
  | {
      readonly kind: "upsert"
      readonly actor: ActorName
      readonly resource: "products"
      readonly ext: Products
      readonly name?: string
      readonly category?: { readonly ext: Categories; readonly byId: boolean }
      /** Sent in combined mode. */
      readonly price?: string
      readonly unit?: "piece" | "metre"
      readonly revision: RevisionChoice
    }
  | {
      /** `target_id`: the actor maps `ext` to the record another actor of its company maps as `target`. */
      readonly kind: "bind"
      readonly actor: ActorName
      readonly resource: "categories" | "products"
      readonly ext: string
      readonly target: { readonly actor: ActorName; readonly ext: string }
    }
  | { readonly kind: "archive"; readonly actor: ActorName; readonly ext: Products; readonly right: boolean }
  | {
      readonly kind: "stock"
      readonly actor: ActorName
      readonly ext: Products
      readonly byId: boolean
      readonly action: "set" | "in" | "out"
      readonly quantity: string
      readonly right: boolean
    }
  | { readonly kind: "reserve"; readonly actor: "a1" | "b1"; readonly ext: Products; readonly reserved: string }
  | {
      /** Sends the last successful write again: with its Idempotency-Key or its event_id, the same body or another. */
      readonly kind: "replay"
      readonly how:
        "upsert-same-key" | "stock-same-key" | "stock-same-event" | "stock-key-other-body" | "stock-event-other-body"
    }
  | {
      readonly kind: "import"
      readonly actor: ActorName
      readonly dryRun: boolean
      readonly items: ReadonlyArray<{
        readonly resource: "categories" | "products"
        readonly ext: string
        readonly name?: string
        /** A category's parent or a product's category, by `{external_id}`. */
        readonly link?: Categories
        readonly right: boolean
      }>
    }
  | { readonly kind: "feed"; readonly actor: ActorName; readonly limit: number }

const actor = fc.constantFrom<ActorName>("a1", "a1", "a2", "b1")
const categoryExt = fc.constantFrom<Categories>("c0", "c1", "c2")
// References and stock mostly name records the bootstrap made, so that most of them resolve.
const linkedCategory = fc.constantFrom<Categories>("c0", "c0", "c0", "c1", "c2")
const productExt = fc.constantFrom<Products>("p0", "p0", "p1", "p2")
// Two names only, so that many writes repeat what is stored (unchanged).
const name = fc.constantFrom("Alpha", "Beta")
const revision = fc.constantFrom<RevisionChoice>("right", "right", "right", "stale", "omit")
// One value in several forms, so that an equal price is unchanged.
const price = fc.constantFrom("10", "10.0", "10.00", "010.5", "10.50", "12")
const stockQuantity = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 9 }).map(String) },
  { weight: 2, arbitrary: fc.constantFrom("2.000", "2.5", "0.75", "999999999", "0.001") }
)

const upsertCommand: fc.Arbitrary<Command> = fc.oneof(
  fc
    .record(
      {
        actor,
        ext: categoryExt,
        name,
        parent: fc.option(fc.record({ ext: linkedCategory, byId: fc.boolean() }), { nil: null, freq: 3 }),
        revision
      },
      { requiredKeys: ["actor", "ext", "revision"] }
    )
    .map((c): Command => ({ kind: "upsert", resource: "categories", ...c })),
  fc
    .record(
      {
        actor,
        ext: productExt,
        name,
        category: fc.record({ ext: linkedCategory, byId: fc.boolean() }),
        price,
        unit: fc.constantFrom<"piece" | "metre">("piece", "metre"),
        revision
      },
      { requiredKeys: ["actor", "ext", "revision"] }
    )
    .map((c): Command => ({ kind: "upsert", resource: "products", ...c }))
)

/** Commands, weighted towards writes; the feed is read now and then (and to its end after every sequence). */
export const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 8, arbitrary: upsertCommand },
  {
    weight: 1,
    arbitrary: fc
      .record({
        actor: fc.constantFrom<ActorName>("a1", "a2"),
        resource: fc.constantFrom<"categories" | "products">("categories", "products"),
        ext: fc.constantFrom("c0", "c1", "p0", "p1", "x9"),
        target: fc.record({
          actor: fc.constantFrom<ActorName>("a1", "a2", "b1"),
          ext: fc.constantFrom("c0", "c1", "p0", "p1")
        })
      })
      .map((c): Command => ({ kind: "bind", ...c }))
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ actor, ext: productExt, right: fc.boolean() })
      .map((c): Command => ({ kind: "archive", ...c }))
  },
  {
    weight: 4,
    arbitrary: fc
      .record({
        actor,
        ext: productExt,
        byId: fc.boolean(),
        action: fc.constantFrom<"set" | "in" | "out">("set", "in", "out"),
        quantity: stockQuantity,
        right: fc.constantFrom(true, true, true, false)
      })
      .map((c): Command => ({ kind: "stock", ...c }))
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        actor: fc.constantFrom<"a1" | "b1">("a1", "b1"),
        ext: productExt,
        reserved: fc.integer({ min: 0, max: 6 }).map(String)
      })
      .map((c): Command => ({ kind: "reserve", ...c }))
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom<Extract<Command, { kind: "replay" }>["how"]>(
        "upsert-same-key",
        "stock-same-key",
        "stock-same-event",
        "stock-key-other-body",
        "stock-event-other-body"
      )
      .map((how): Command => ({ kind: "replay", how }))
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        actor,
        dryRun: fc.boolean(),
        items: fc.uniqueArray(
          fc.oneof(
            fc.record(
              {
                resource: fc.constant("categories" as const),
                ext: categoryExt,
                name,
                link: categoryExt,
                right: fc.boolean()
              },
              { requiredKeys: ["resource", "ext", "right"] }
            ),
            fc.record(
              {
                resource: fc.constant("products" as const),
                ext: productExt,
                name,
                link: categoryExt,
                right: fc.boolean()
              },
              { requiredKeys: ["resource", "ext", "right"] }
            )
          ),
          { minLength: 1, maxLength: 4, selector: (item) => `${item.resource}|${item.ext}` }
        )
      })
      .map((c): Command => ({ kind: "import", ...c }))
  },
  {
    weight: 2,
    arbitrary: fc.record({ actor, limit: fc.integer({ min: 1, max: 4 }) }).map((c): Command => ({ kind: "feed", ...c }))
  }
)

const create = (
  actorName: ActorName,
  resource: "categories" | "products",
  ext: string,
  link?: Categories,
  unit?: "metre"
): Command =>
  resource === "categories"
    ? {
        kind: "upsert",
        actor: actorName,
        resource,
        ext: ext as Categories,
        name: "Alpha",
        revision: "right",
        ...(link === undefined ? {} : { parent: { ext: link, byId: false } })
      }
    : {
        kind: "upsert",
        actor: actorName,
        resource,
        ext: ext as Products,
        name: "Alpha",
        category: { ext: link ?? "c0", byId: false },
        ...(unit === undefined ? {} : { unit }),
        revision: "right"
      }

/** Records most sequences start from (a counterexample keeps only those it needs). */
const bootstrap: ReadonlyArray<Command> = [
  create("a1", "categories", "c0"),
  create("a1", "categories", "c1", "c0"),
  create("a1", "products", "p0"),
  create("a1", "products", "p1", "c1", "metre"),
  create("a2", "categories", "c0"),
  create("a2", "products", "p2"),
  create("b1", "categories", "c0"),
  create("b1", "products", "p0")
]

/** A command sequence: what each property run executes in fresh companies. */
export const commands = (maxCommands = 30): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc
    .tuple(
      // Each bootstrap record is kept four times in five; shrinking drops the ones a counterexample does not need.
      fc.tuple(...bootstrap.map(() => fc.nat(4).map((n) => n > 0))).map((kept) => bootstrap.filter((_, i) => kept[i])),
      fc.array(command, { minLength: 1, maxLength: maxCommands, size: "max" })
    )
    .map(([first, rest]) => [...first, ...rest])

// ---------------------------------------------------------------------------------------------------------
// Running a sequence

/** A disagreement between the system under test and the model. */
export class ModelMismatch extends Error {
  constructor(
    readonly command: string,
    message: string
  ) {
    super(`${command}: ${message}`)
    this.name = "ModelMismatch"
  }
}

/** What a run counted, for the report. */
export interface Figures {
  commands: number
  requests: number
  changes: number
  skipped: number
  /** How many answers of each kind were checked: `upsert products: created`, `stock: stock_below_zero`... */
  readonly answers: Record<string, number>
}

export const emptyFigures = (): Figures => ({ commands: 0, requests: 0, changes: 0, skipped: 0, answers: {} })

const sortById = <T extends { readonly id: string }>(items: ReadonlyArray<T>) =>
  [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))

const show = (value: unknown) => JSON.stringify(value)

/** An id no record has: a reference to it never resolves. */
const nowhere = "00000000-0000-4000-8000-000000000000"

export interface LastWrite {
  readonly actor: ActorName
  readonly resource: string
  readonly body: Json
  readonly key: string
  readonly answer: Json
}

/** One sequence's state: the session, the model and what the harness remembers between commands. */
export class Run {
  readonly model = new CatalogModel()
  readonly cursors: Record<ActorName, string | undefined> = { a1: undefined, a2: undefined, b1: undefined }
  lastUpsert: LastWrite | undefined
  lastStock: LastWrite | undefined
  private keys = 0

  constructor(
    readonly session: Session,
    readonly figures: Figures
  ) {}

  key() {
    return `model-${Date.now().toString(36)}-${++this.keys}-${Math.random().toString(36).slice(2, 10)}`
  }

  call<A>(effect: Effect.Effect<Answer<A>>) {
    this.figures.requests++
    return effect
  }

  fail(what: string, message: string): never {
    throw new ModelMismatch(what, message)
  }

  /** The answer must be the prediction's refusal, or an acceptance (returned for the caller to check). */
  expect<V>(what: string, answer: Answer<Json>, expected: Expected<V>): Json | undefined {
    const kind = what.slice(0, what.indexOf("("))
    const tally = `${kind}: ${expected._tag === "Refused" ? expected.code : ((expected.value as { outcome?: string }).outcome ?? "accepted")}`
    this.figures.answers[tally] = (this.figures.answers[tally] ?? 0) + 1
    if (expected._tag === "Refused") {
      if (answer._tag !== "Refused" || answer.code !== expected.code)
        this.fail(
          what,
          `expected ${expected.code}, got ${answer._tag === "Refused" ? answer.code : `accepted ${show(answer.value)}`}`
        )
      if (expected.currentRevision !== undefined && answer.currentRevision !== expected.currentRevision)
        this.fail(what, `expected current_revision ${expected.currentRevision}, got ${answer.currentRevision}`)
      return undefined
    }
    if (answer._tag === "Refused")
      this.fail(
        what,
        `expected it accepted (${show(expected.value)}), got ${answer.code}: ${show((answer.error as Json)?.message ?? answer.error)}`
      )
    return answer.value
  }

  equal(what: string, actual: unknown, expected: unknown) {
    if (show(actual) !== show(expected)) this.fail(what, `expected ${show(expected)}, got ${show(actual)}`)
  }

  accepted<A>(what: string, answer: Answer<A>): A {
    if (answer._tag === "Refused") this.fail(what, `refused with ${answer.code}`)
    return answer.value
  }

  /** The id a reference by uuid carries: the actor's mapping, else its company peer's, else none at all. */
  idFor(actorName: ActorName, resource: ModelRecord["resource"], ext: string): string {
    const peers = actorNames.filter((a) => actorSpecs[a].company === actorSpecs[actorName].company)
    for (const a of [actorName, ...peers]) {
      const found = this.model.mapped(a, resource, ext)
      if (found !== undefined) return found.id
    }
    return nowhere
  }

  link(actorName: ActorName, ext: string, byId: boolean): Link {
    return byId ? { id: this.idFor(actorName, "categories", ext) } : { externalId: ext }
  }

  wire(link: Link): unknown {
    return "id" in link ? link.id : { external_id: link.externalId }
  }

  bodyOf(request: UpsertRequest): Json {
    const link = request.link === undefined ? undefined : request.link === null ? null : this.wire(request.link)
    return Object.fromEntries(
      Object.entries({
        external_id: request.externalId,
        target_id: request.targetId,
        expected_revision: request.expectedRevision,
        name: request.name,
        ...(request.resource === "categories"
          ? { parent_id: link }
          : { category_ids: link === undefined || link === null ? undefined : [link] }),
        unit: request.unit,
        ...(request.price === undefined ? {} : { mode: "combined", price: request.price })
      }).filter(([, value]) => value !== undefined)
    )
  }
}

const expectedRevision = (stored: { readonly revision: number } | undefined, choice: RevisionChoice) =>
  choice === "omit"
    ? undefined
    : choice === "right"
      ? (stored?.revision ?? 0)
      : stored === undefined
        ? 1
        : stored.revision - 1

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
      run.call(
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

/** Import records apply in passes: categories before products, each in body order; an unresolved record waits. */
const importPasses = (
  model: CatalogModel,
  actorName: ActorName,
  requests: ReadonlyArray<UpsertRequest>,
  idOf: (index: number) => string
): ReadonlyArray<Expected<{ readonly outcome: string }>> => {
  const results: Array<Expected<{ readonly outcome: string }>> = []
  let waiting = requests
    .map((request, index) => ({ request, index }))
    .sort((a, b) =>
      a.request.resource === b.request.resource ? a.index - b.index : a.request.resource === "categories" ? -1 : 1
    )
  for (;;) {
    let progress = false
    const next: typeof waiting = []
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
    const body = {
      ...(c.dryRun ? { dry_run: true } : {}),
      records: requests.map((request) => ({ resource: request.resource, body: run.bodyOf(request) }))
    }
    const answer = yield* run.call(run.session.importRecords(c.actor, body, run.key()))
    const value = run.accepted(what, answer)
    const report = value.report
    if (!c.dryRun) run.equal(`${what}: job state`, value.job.state, "completed")
    run.equal(`${what}: dry_run`, report.dry_run, c.dryRun)
    const model = c.dryRun ? run.model.clone() : run.model
    const predictions = importPasses(model, c.actor, requests, (i) => report.records[i]?.id ?? `dry-run-${i}`)
    predictions.forEach((expected, i) => {
      const row = report.records[i]
      run.equal(
        `${what}: record ${i}`,
        [row.index, row.status, row.status === "applied" ? row.outcome : row.error?.code],
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

/** Reads the actor's feed to its end: exactly the changes it has not read and may see, in order, each once. */
export const readFeed = (run: Run, what: string, actorName: ActorName, limit: number) =>
  Effect.gen(function* () {
    const got: Array<Json> = []
    for (let page = 0; ; page++) {
      if (page > 1000) run.fail(what, "the feed does not end")
      const value = run.accepted(what, yield* run.call(run.session.feed(actorName, run.cursors[actorName], limit)))
      if (value.records.length > limit) run.fail(what, `a page of ${value.records.length} changes with limit ${limit}`)
      got.push(...value.records)
      run.cursors[actorName] = value.next_cursor
      if (!value.has_more) break
    }
    const company = actorSpecs[actorName].company
    const expected = run.model.unread(actorName).map((change) => ({
      resource: change.resource,
      id: change.id,
      external_id: run.model.externalIdOf(actorName, change.resource, change.id),
      revision: change.revision,
      operation: change.operation,
      origin_connection_id: change.origin === "platform" ? platformOrigin : run.session.connectionOf(change.origin)
    }))
    run.equal(
      `${what}: feed of ${actorName}`,
      got.map((c) => ({
        resource: c.resource,
        id: c.id,
        external_id: c.external_id,
        revision: c.revision,
        operation: c.operation,
        origin_connection_id: c.origin_connection_id
      })),
      expected
    )
    // Positions are the company's own: after reading to the end, the cursor is at its number of changes.
    const position = yield* Effect.either(ChangeCursor.decode(run.cursors[actorName] ?? "", "cursor"))
    run.equal(
      `${what}: feed position of ${actorName}`,
      position._tag === "Right" ? position.right.position : run.cursors[actorName],
      run.model.feeds[company].length
    )
    run.model.delivered[actorName] = run.model.feeds[company].length
    run.figures.changes += got.length
  })

/** The system agrees with the model as `actorName` sees it: lists, the touched record, and the stock cards. */
export const verify = (
  run: Run,
  what: string,
  actorName: ActorName,
  touched: { readonly resource: ModelRecord["resource"]; readonly id: string } | undefined
) =>
  Effect.gen(function* () {
    const { model } = run
    const seesPrices = actorSpecs[actorName].scopes.includes("prices:read")
    const categories = run.accepted(what, yield* run.call(run.session.list(actorName, "categories")))
    run.equal(
      `${what}: categories of ${actorName}`,
      sortById(categories).map((r) => [r.id, r.external_id, r.revision, r.name, r.parent_id]),
      model
        .listed(actorName, "categories")
        .map((r) => [
          r.id,
          model.externalIdOf(actorName, "categories", r.id),
          r.revision,
          r.name,
          r.resource === "categories" ? r.parent : null
        ])
    )
    const products = run.accepted(what, yield* run.call(run.session.list(actorName, "products")))
    run.equal(
      `${what}: products of ${actorName}`,
      sortById(products).map((r) => [
        r.id,
        r.external_id,
        r.revision,
        r.name,
        r.category_ids,
        r.unit,
        r.price,
        r.state
      ]),
      model.listed(actorName, "products").map((r) => {
        const p = r as Extract<ModelRecord, { resource: "products" }>
        return [
          p.id,
          model.externalIdOf(actorName, "products", p.id),
          p.revision,
          p.name,
          [p.category],
          p.unit,
          seesPrices ? p.price : undefined,
          "inactive"
        ]
      })
    )
    if (touched !== undefined) {
      const record = model.records.get(touched.id)
      if (record !== undefined && record.company === actorSpecs[actorName].company) {
        const one = run.accepted(what, yield* run.call(run.session.get(actorName, touched.resource, touched.id)))
        const archived = record.resource === "products" && record.archived
        run.equal(
          `${what}: ${touched.resource} ${touched.id}`,
          [one.id, one.external_id, one.revision, one.name, record.resource === "products" ? one.state : undefined],
          [
            record.id,
            model.externalIdOf(actorName, touched.resource, record.id),
            record.revision,
            record.name,
            record.resource === "products" ? (archived ? "archived" : "inactive") : undefined
          ]
        )
        const ext = model.externalIdOf(actorName, touched.resource, record.id)
        if (ext !== null) {
          const filtered = run.accepted(what, yield* run.call(run.session.list(actorName, touched.resource, ext)))
          run.equal(
            `${what}: ${touched.resource} with external_id ${ext}`,
            filtered.map((r) => r.id),
            archived ? [] : [record.id]
          )
        }
      }
    }
    const cards = run.accepted(what, yield* run.call(run.session.inventory(actorName)))
    const location = run.session.locationOf(actorSpecs[actorName].company)
    run.equal(
      `${what}: stock cards of ${actorName}`,
      sortById(cards).map((c) => [
        c.id,
        c.source_id,
        c.source_external_id,
        c.balances.map((b: Json) => [b.location_id, b.physical, b.reserved, b.revision])
      ]),
      model
        .cardsOf(actorName)
        .map((c) => [
          c.id,
          c.product,
          model.externalIdOf(actorName, "products", c.product),
          c.balance === undefined ? [] : [[location, c.balance.physical, c.balance.reserved, c.balance.revision]]
        ])
    )
    run.figures.commands++
  })

const describeCommand = (c: Command): string => {
  const { kind, ...rest } = c
  return `${kind}(${Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : show(v)}`)
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
          value.balances.map((b: Json) => [b.physical, b.reserved, b.revision]),
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

/**
 * A small in-memory model of one company's catalog as one connection sees it (categories, products,
 * the stock of products at one writable location, and the change feed), and fast-check commands that
 * drive the real server over HTTP and compare every answer with what the model predicts. Each command
 * predicts the status, error code, outcome and revision of its own request; `verify` then compares the
 * server's lists, the touched record and the stock cards with the model after every step.
 */
import fc from "fast-check"
import { expect } from "vitest"

export interface Reply {
  readonly status: number
  readonly body: any
}

export type Http = (
  method: "GET" | "POST" | "DELETE",
  path: string,
  options?: { readonly body?: unknown; readonly idempotencyKey?: string }
) => Promise<Reply>

interface Rec {
  readonly id: string
  readonly revision: number
  readonly name: string
  /** Products: the external id of their one category. */
  readonly category?: string
  readonly archived: boolean
}

interface Balance {
  readonly cardId: string
  readonly physical: number
  readonly revision: number
}

interface FeedEntry {
  readonly resource: string
  readonly id: string
  readonly revision: number
  readonly operation: string
}

export interface Model {
  readonly categories: Map<string, Rec>
  readonly products: Map<string, Rec>
  /** Balances at the one location, by product external id. */
  readonly stock: Map<string, Balance>
  /** Committed changes the feed has not delivered yet, in commit order. */
  pending: Array<FeedEntry>
  /** The last stock write that succeeded, to be replayed. */
  lastStock: { readonly body: Record<string, unknown>; readonly key: string; readonly reply: Reply } | undefined
}

export interface Real {
  readonly http: Http
  readonly connectionId: string
  readonly locationId: string
  /** The feed cursor: a list's first change_cursor, then each next_cursor. */
  cursor: string
  /** The last revision the feed delivered per resource/id: revisions must grow. */
  readonly delivered: Map<string, number>
  /** Figures for the report. */
  readonly figures: { commands: number; requests: number; changes: number }
}

export const emptyModel = (): Model => ({
  categories: new Map(),
  products: new Map(),
  stock: new Map(),
  pending: [],
  lastStock: undefined
})

/** How a write chooses its expected revision: the one read, an outdated or future one, or none. */
export type RevisionChoice = "right" | "stale" | "omit"

type Expected =
  | { readonly status: 200; readonly outcome: "created" | "updated" | "unchanged" }
  | { readonly status: number; readonly code: string; readonly current?: number }

let keys = 0
const idempotencyKey = () => `model-${process.pid}-${++keys}-${Date.now()}`

const send = async (
  real: Real,
  method: "GET" | "POST" | "DELETE",
  path: string,
  options?: { readonly body?: unknown; readonly idempotencyKey?: string }
) => {
  real.figures.requests++
  const reply = await real.http(method, path, options)
  // Whatever the model predicts, a 5xx or an answer without the spec's envelope is a failure.
  expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBeLessThan(500)
  expect(typeof reply.body?.request_id, `${method} ${path}: request_id`).toBe("string")
  return reply
}

const expectReply = (what: string, reply: Reply, expected: Expected) => {
  if (expected.status === 200 && "outcome" in expected) {
    expect({ what, status: reply.status, outcome: reply.body?.outcome }, JSON.stringify(reply.body)).toEqual({
      what,
      status: 200,
      outcome: expected.outcome
    })
  } else if ("code" in expected) {
    expect({ what, status: reply.status, code: reply.body?.error?.code }, JSON.stringify(reply.body)).toEqual({
      what,
      status: expected.status,
      code: expected.code
    })
    if (expected.current !== undefined) expect(reply.body.error.details.current_revision).toBe(expected.current)
  }
}

const expectedRevision = (
  rec: { readonly revision: number } | undefined,
  choice: RevisionChoice
): number | undefined =>
  choice === "omit" ? undefined : choice === "right" ? (rec?.revision ?? 0) : rec === undefined ? 1 : rec.revision - 1

/** What an upsert of a category or product should answer, from the model alone (the server's check order). */
const predictUpsert = (
  model: Model,
  resource: "categories" | "products",
  ext: string,
  name: string,
  category: string | undefined,
  choice: RevisionChoice
): Expected => {
  const rec = model[resource].get(ext)
  const expected = expectedRevision(rec, choice)
  if (rec === undefined) {
    if (expected !== undefined && expected !== 0) return { status: 409, code: "revision_conflict", current: 0 }
  } else {
    if (rec.archived) return { status: 409, code: "record_archived" }
    if (expected !== rec.revision) return { status: 409, code: "revision_conflict", current: rec.revision }
  }
  if (category !== undefined && !model.categories.has(category)) return { status: 422, code: "unresolved_reference" }
  if (rec === undefined) return { status: 200, outcome: "created" }
  return { status: 200, outcome: rec.name === name && rec.category === category ? "unchanged" : "updated" }
}

/** Applies a successful upsert to the model and queues its change. */
const applyUpsert = (
  model: Model,
  resource: "categories" | "products",
  ext: string,
  record: any,
  outcome: string,
  category: string | undefined
) => {
  const before = model[resource].get(ext)
  if (before !== undefined) expect(record.id).toBe(before.id)
  const revision = before === undefined ? 1 : outcome === "unchanged" ? before.revision : before.revision + 1
  expect(record.revision).toBe(revision)
  model[resource].set(ext, {
    id: record.id,
    revision,
    name: record.name,
    ...(category === undefined ? {} : { category }),
    archived: false
  })
  if (outcome !== "unchanged") model.pending.push({ resource, id: record.id, revision, operation: outcome })
}

/** POST /categories/upsert or /products/upsert; `name` undefined re-sends the stored content (an unchanged write). */
export class Upsert implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly resource: "categories" | "products",
    readonly ext: string,
    readonly name: string | undefined,
    readonly category: string,
    readonly choice: RevisionChoice
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const stored = model[this.resource].get(this.ext)
    const name = this.name ?? stored?.name ?? "Fresh"
    const category =
      this.resource === "products"
        ? this.name === undefined
          ? (stored?.category ?? this.category)
          : this.category
        : undefined
    const expected = expectedRevision(stored, this.choice)
    const body = {
      external_id: this.ext,
      name,
      ...(expected === undefined ? {} : { expected_revision: expected }),
      ...(category === undefined ? {} : { category_ids: [{ external_id: category }] })
    }
    const prediction = predictUpsert(model, this.resource, this.ext, name, category, this.choice)
    const reply = await send(real, "POST", `/${this.resource}/upsert`, { body, idempotencyKey: idempotencyKey() })
    expectReply(this.toString(), reply, prediction)
    if (reply.status === 200)
      applyUpsert(model, this.resource, this.ext, reply.body.record, reply.body.outcome, category)
    await verify(model, real, this.resource, this.ext)
  }
  toString = () =>
    `upsert(${this.resource} ${this.ext} ${this.name ?? "<same>"}${this.resource === "products" ? ` in ${this.category}` : ""} ${this.choice})`
}

/** DELETE /products/{id} with the right or a future expected_revision. */
export class Archive implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly ext: string,
    readonly right: boolean
  ) {}
  check = (model: Readonly<Model>) => model.products.has(this.ext)
  async run(model: Model, real: Real) {
    const rec = model.products.get(this.ext)!
    const expected = this.right ? rec.revision : rec.revision + 1
    const reply = await send(real, "DELETE", `/products/${rec.id}`, {
      body: { expected_revision: expected },
      idempotencyKey: idempotencyKey()
    })
    if (!this.right) {
      expectReply(this.toString(), reply, { status: 409, code: "revision_conflict", current: rec.revision })
    } else {
      expectReply(this.toString(), reply, { status: 200, outcome: rec.archived ? "unchanged" : "updated" })
      expect(reply.body.record).toMatchObject({
        id: rec.id,
        state: "archived",
        revision: rec.archived ? rec.revision : rec.revision + 1
      })
      if (!rec.archived) {
        model.products.set(this.ext, { ...rec, revision: rec.revision + 1, archived: true })
        model.pending.push({ resource: "products", id: rec.id, revision: rec.revision + 1, operation: "archived" })
      }
    }
    await verify(model, real, "products", this.ext)
  }
  toString = () => `archive(${this.ext} ${this.right ? "right" : "stale"})`
}

/** POST /inventory: set, in or out of a product's stock at the connection's location, with a revision CAS. */
export class Stock implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly ext: string,
    readonly action: "set" | "in" | "out",
    readonly quantity: number,
    readonly right: boolean
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const balance = model.stock.get(this.ext)
    const current = balance?.revision ?? 0
    const body = {
      event_id: globalThis.crypto.randomUUID(),
      source_kind: "product",
      source_id: { external_id: this.ext },
      location_id: real.locationId,
      action: this.action,
      quantity: String(this.quantity),
      revision: this.right ? current : current + 1,
      note: "model test"
    }
    const before = balance?.physical ?? 0
    const after =
      this.action === "set" ? this.quantity : this.action === "in" ? before + this.quantity : before - this.quantity
    const prediction: Expected = !model.products.has(this.ext)
      ? { status: 422, code: "unresolved_reference" }
      : !this.right
        ? { status: 409, code: "revision_conflict", current }
        : after < 0
          ? { status: 422, code: "stock_below_zero" }
          : { status: 200, outcome: balance === undefined ? "created" : after === before ? "unchanged" : "updated" }
    const key = idempotencyKey()
    const reply = await send(real, "POST", "/inventory", { body, idempotencyKey: key })
    expectReply(this.toString(), reply, prediction)
    if (reply.status === 200) {
      const revision = reply.body.outcome === "unchanged" ? current : current + 1
      if (balance !== undefined) expect(reply.body.record.id).toBe(balance.cardId)
      expect(reply.body.event).toMatchObject({
        physical_before: String(before),
        physical_after: String(after),
        revision
      })
      model.stock.set(this.ext, { cardId: reply.body.record.id, physical: after, revision })
      if (reply.body.outcome !== "unchanged") {
        model.pending.push({
          resource: "inventory",
          id: reply.body.record.id,
          revision,
          operation: balance === undefined ? "created" : "updated"
        })
      }
      model.lastStock = { body, key, reply }
    }
    await verify(model, real, "products", this.ext)
  }
  toString = () => `stock(${this.ext} ${this.action} ${this.quantity} ${this.right ? "right" : "stale"})`
}

/**
 * Repeats the last successful stock write: with its Idempotency-Key (the stored response comes back) or
 * with a new key and the same event_id (the event's stored result comes back). Neither writes again.
 */
export class ReplayStock implements fc.AsyncCommand<Model, Real> {
  constructor(readonly sameKey: boolean) {}
  check = (model: Readonly<Model>) => model.lastStock !== undefined
  async run(model: Model, real: Real) {
    const last = model.lastStock!
    const reply = await send(real, "POST", "/inventory", {
      body: last.body,
      idempotencyKey: this.sameKey ? last.key : idempotencyKey()
    })
    expect(reply.status).toBe(200)
    expect(reply.body.replayed).toBe(true)
    const { request_id: _a, replayed: _b, ...original } = last.reply.body
    const { request_id: _c, replayed: _d, ...again } = reply.body
    expect(again).toEqual(original)
    await verify(model, real, "products", (last.body.source_id as { readonly external_id: string }).external_id)
  }
  toString = () => `replayStock(${this.sameKey ? "same key" : "same event_id"})`
}

/** POST /imports of a few category upserts, waited to completion; each record is predicted like a single upsert. */
export class Import implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly items: ReadonlyArray<{ readonly ext: string; readonly name: string; readonly choice: "right" | "stale" }>
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const records = this.items.map((item) => {
      const expected = expectedRevision(model.categories.get(item.ext), item.choice)
      return { resource: "categories", body: { external_id: item.ext, name: item.name, expected_revision: expected } }
    })
    // The records touch distinct external ids, so their predictions do not depend on each other's order.
    const predictions = this.items.map((item) =>
      predictUpsert(model, "categories", item.ext, item.name, undefined, item.choice)
    )
    const accepted = await send(real, "POST", "/imports", { body: { records }, idempotencyKey: idempotencyKey() })
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
    let done: Reply | undefined
    for (let i = 0; i < 400 && done === undefined; i++) {
      const reply = await send(real, "GET", `/imports/${accepted.body.job.id}`)
      if (reply.body.job.state === "completed" || reply.body.job.state === "failed") done = reply
      else await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect(done, "the import finished").toBeDefined()
    const report = done!.body.report
    const failed = predictions.filter((p) => p.status !== 200).length
    // A job whose processing finishes is completed; its report counts the failed records (spec 3).
    expect(done!.body.job.state).toBe("completed")
    expect(report.failed).toBe(failed)
    for (const [i, prediction] of predictions.entries()) {
      const row = report.records[i]
      expect(row.index).toBe(i)
      if (prediction.status === 200 && "outcome" in prediction) {
        expect({ status: row.status, outcome: row.outcome }, JSON.stringify(row)).toEqual({
          status: "applied",
          outcome: prediction.outcome
        })
      } else if ("code" in prediction) {
        expect({ status: row.status, code: row.error?.code }, JSON.stringify(row)).toEqual({
          status: "failed",
          code: prediction.code
        })
      }
    }
    // The job applies in record order; read each applied record back for its revision and name.
    for (const [i, prediction] of predictions.entries()) {
      if (prediction.status !== 200 || !("outcome" in prediction)) continue
      const record = (await send(real, "GET", `/categories/${report.records[i].id}`)).body.record
      applyUpsert(model, "categories", this.items[i]!.ext, record, prediction.outcome, undefined)
    }
    await verify(model, real, "categories", this.items[0]!.ext)
  }
  toString = () => `import(${this.items.map((i) => `${i.ext}=${i.name} ${i.choice}`).join(", ")})`
}

/** Follows GET /changes from the saved cursor with a small page size until caught up. */
export class ReadFeed implements fc.AsyncCommand<Model, Real> {
  constructor(readonly limit: number) {}
  check = () => true
  async run(model: Model, real: Real) {
    real.figures.commands++
    await readFeed(model, real, this.limit)
  }
  toString = () => `readFeed(limit ${this.limit})`
}

/** Reads the feed to its end: it must deliver exactly the pending changes, in order, each once, with growing revisions. */
export const readFeed = async (model: Model, real: Real, limit: number) => {
  const got: Array<FeedEntry> = []
  for (let page = 0; ; page++) {
    expect(page, "the feed ends").toBeLessThan(1000)
    const reply = await send(real, "GET", `/changes?cursor=${real.cursor}&limit=${limit}`)
    expect(reply.status).toBe(200)
    expect(reply.body.records.length).toBeLessThanOrEqual(limit)
    for (const change of reply.body.records) {
      expect(change.origin_connection_id).toBe(real.connectionId)
      const key = `${change.resource}/${change.id}`
      expect(change.revision, `revisions grow for ${key}`).toBeGreaterThan(real.delivered.get(key) ?? 0)
      real.delivered.set(key, change.revision)
      got.push({ resource: change.resource, id: change.id, revision: change.revision, operation: change.operation })
    }
    real.cursor = reply.body.next_cursor
    if (!reply.body.has_more) break
  }
  expect(got).toEqual(model.pending)
  real.figures.changes += got.length
  model.pending = []
}

/** The server agrees with the model: both lists, the touched record by id and by external_id, and the stock cards. */
const verify = async (model: Model, real: Real, resource: "categories" | "products", ext: string | undefined) => {
  real.figures.commands++
  const categories = (await send(real, "GET", "/categories?limit=100")).body.records as Array<any>
  expect(
    categories.map((r) => ({ ext: r.external_id, id: r.id, revision: r.revision, name: r.name })).sort(byExt)
  ).toEqual(
    Array.from(model.categories, ([ext, r]) => ({ ext, id: r.id, revision: r.revision, name: r.name })).sort(byExt)
  )
  // Archived products are left out of lists.
  const products = (await send(real, "GET", "/products?limit=100")).body.records as Array<any>
  expect(
    products
      .map((r) => ({ ext: r.external_id, id: r.id, revision: r.revision, name: r.name, categories: r.category_ids }))
      .sort(byExt)
  ).toEqual(
    Array.from(model.products)
      .filter(([, r]) => !r.archived)
      .map(([ext, r]) => ({
        ext,
        id: r.id,
        revision: r.revision,
        name: r.name,
        categories: [model.categories.get(r.category!)!.id]
      }))
      .sort(byExt)
  )
  const rec = ext === undefined ? undefined : model[resource].get(ext)
  if (ext !== undefined && rec !== undefined) {
    const one = await send(real, "GET", `/${resource}/${rec.id}`)
    expect(one.body.record).toMatchObject({ id: rec.id, external_id: ext, revision: rec.revision, name: rec.name })
    if (resource === "products") expect(one.body.record.state).toBe(rec.archived ? "archived" : "inactive")
    const byExternalId = await send(real, "GET", `/${resource}?external_id=${ext}`)
    expect(byExternalId.body.records.map((r: any) => r.id)).toEqual(rec.archived ? [] : [rec.id])
  }
  const cards = (await send(real, "GET", "/inventory?limit=100")).body.records as Array<any>
  expect(
    cards
      .map((c) => ({
        id: c.id,
        ext: c.source_external_id,
        balances: c.balances.map((b: any) => ({ physical: Number(b.physical), revision: b.revision }))
      }))
      .sort(byExt)
  ).toEqual(
    Array.from(model.stock, ([ext, b]) => ({
      id: b.cardId,
      ext,
      balances: [{ physical: b.physical, revision: b.revision }]
    })).sort(byExt)
  )
}

const byExt = (a: { readonly ext: string }, b: { readonly ext: string }) => (a.ext < b.ext ? -1 : a.ext > b.ext ? 1 : 0)

const categoryExt = fc.constantFrom("c0", "c1", "c2")
const productExt = fc.constantFrom("p0", "p1", "p2")
// Two names only, so that many writes repeat the stored content (unchanged).
const name = fc.constantFrom("Alpha", "Beta")
const choice = fc.constantFrom<RevisionChoice>("right", "right", "right", "stale", "omit")

/** The commands, weighted towards writes; the feed is read now and then (and once at the end of a run). */
export const commands = [
  fc
    .tuple(categoryExt, fc.option(name, { freq: 4 }), choice)
    .map(([ext, n, c]) => new Upsert("categories", ext, n ?? undefined, "c0", c)),
  fc
    .tuple(productExt, fc.option(name, { freq: 4 }), categoryExt, choice)
    .map(([ext, n, cat, c]) => new Upsert("products", ext, n ?? undefined, cat, c)),
  fc.tuple(productExt, fc.boolean()).map(([ext, right]) => new Archive(ext, right)),
  fc
    .tuple(
      productExt,
      fc.constantFrom<"set" | "in" | "out">("set", "in", "out"),
      fc.integer({ min: 0, max: 9 }),
      fc.constantFrom(true, true, true, false)
    )
    .map(([ext, a, q, right]) => new Stock(ext, a, q, right)),
  fc.boolean().map((sameKey) => new ReplayStock(sameKey)),
  fc
    .uniqueArray(
      fc.record({ ext: categoryExt, name, choice: fc.constantFrom<"right" | "stale">("right", "right", "stale") }),
      { minLength: 1, maxLength: 3, selector: (i) => i.ext }
    )
    .map((items) => new Import(items)),
  fc.integer({ min: 1, max: 4 }).map((limit) => new ReadFeed(limit))
]

/**
 * One command sequence's run: the session, the model and the checks every command shares (answers against
 * predictions, and the acting connection's lists, touched record, stock cards and feed against the model).
 */
import { Effect } from "effect"
import * as ChangeCursor from "../Changes/ChangeCursor.js"
import type { RevisionChoice } from "./ModelCommands.js"
import type { FeedAnswer, Json, Session, StockAnswer, WriteAnswer } from "./ModelTarget.js"
import type { Answer } from "./Probe.js"
import {
  type ActorName,
  actorNames,
  actorSpecs,
  CatalogModel,
  type Expected,
  type Link,
  type ModelRecord,
  platformOrigin,
  type UpsertRequest
} from "./ReferenceModel.js"

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

/** Figures of a run before its first command. */
export const emptyFigures = (): Figures => ({ commands: 0, requests: 0, changes: 0, skipped: 0, answers: {} })

const sortById = <T extends { readonly id: string }>(items: ReadonlyArray<T>) =>
  [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))

const show = (value: unknown) => JSON.stringify(value)

/** An id no record has: a reference to it never resolves. */
export const nowhere = "00000000-0000-4000-8000-000000000000"

/** The last write of a run, for a failure's report. */
export interface LastWrite {
  readonly actor: ActorName
  readonly resource: string
  readonly body: Json
  readonly key: string
  readonly answer: WriteAnswer | StockAnswer
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
  expect<A, V>(what: string, answer: Answer<A>, expected: Expected<V>): A | undefined {
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
        `expected it accepted (${show(expected.value)}), got ${answer.code}: ${show((answer.error as { readonly message?: unknown } | undefined)?.message ?? answer.error)}`
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

/** The `expected_revision` a command sends for its choice. */
export const expectedRevision = (stored: { readonly revision: number } | undefined, choice: RevisionChoice) =>
  choice === "omit"
    ? undefined
    : choice === "right"
      ? (stored?.revision ?? 0)
      : stored === undefined
        ? 1
        : stored.revision - 1

/** Reads the actor's feed to its end: exactly the changes it has not read and may see, in order, each once. */
export const readFeed = (run: Run, what: string, actorName: ActorName, limit: number) =>
  Effect.gen(function* () {
    const got: Array<FeedAnswer["records"][number]> = []
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
    const position = yield* Effect.result(ChangeCursor.decode(run.cursors[actorName] ?? "", "cursor"))
    run.equal(
      `${what}: feed position of ${actorName}`,
      position._tag === "Success" ? position.success.position : run.cursors[actorName],
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
        c.balances.map((b) => [b.location_id, b.physical, b.reserved, b.revision])
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

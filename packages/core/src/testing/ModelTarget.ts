/**
 * What the model harness drives: a system under test as a `Target` that opens a `Session` of two new
 * companies, and the calls a session answers, in the shape of the API's envelopes.
 */
import type { Effect } from "effect"
import type { Answer } from "./Probe.js"
import type { ActorName, CompanyName } from "./ReferenceModel.js"

/** A body the harness sends: a JSON object. */
export type Json = { readonly [key: string]: unknown }

/** A record as the API answers it: its identity and revision, then its resource's fields. */
export type RecordAnswer = {
  readonly id: string
  readonly external_id: string | null
  readonly revision: number
  readonly [field: string]: unknown
}

/** POST /{resource}/upsert and DELETE /products/{id}: the outcome and the record. */
export type WriteAnswer = {
  readonly outcome: string
  readonly record: RecordAnswer
  readonly replayed?: boolean
}

/** A stock card's balance at one location. */
export type BalanceAnswer = {
  readonly location_id: string
  readonly physical: string
  readonly reserved: string
  readonly revision: number
}

/** A stock card as the API answers it. */
export type CardAnswer = {
  readonly id: string
  readonly source_id: string
  readonly source_external_id: string | null
  readonly balances: ReadonlyArray<BalanceAnswer>
}

/** POST /inventory: the outcome, the card and the event. */
export type StockAnswer = {
  readonly outcome: string
  readonly record: CardAnswer
  readonly event: { readonly physical_before: string; readonly physical_after: string; readonly revision: number }
  readonly replayed?: boolean
}

/** One record of an import's report. */
export type ImportRowAnswer = {
  readonly index: number
  readonly status: string
  readonly outcome?: string | null
  readonly id?: string | null
  readonly error?: { readonly code: string } | null
}

/** POST /imports processed: the job (none for a dry run) and its report. */
export type ImportAnswer = {
  readonly job: { readonly state: string } | null
  readonly report: {
    readonly dry_run: boolean
    readonly failed: number
    readonly records: ReadonlyArray<ImportRowAnswer>
  } | null
}

/** GET /changes: one page of the feed. */
export type FeedAnswer = {
  readonly records: ReadonlyArray<{
    readonly resource: string
    readonly id: string
    readonly external_id: string | null
    readonly revision: number
    readonly operation: string
    readonly origin_connection_id: string | null
  }>
  readonly next_cursor: string
  readonly has_more: boolean
}

/** A connection's view of the API, as the harness drives it. Every write carries an Idempotency-Key. */
export interface Session {
  /** The connection id of an actor (the feed's origin_connection_id of its writes). */
  readonly connectionOf: (actor: ActorName) => string
  /** The stock location of a company. */
  readonly locationOf: (company: CompanyName) => string
  /** POST /{resource}/upsert: `{outcome, record, replayed?}`. */
  readonly upsert: (actor: ActorName, resource: string, body: Json, key: string) => Effect.Effect<Answer<WriteAnswer>>
  /** DELETE /products/{id}: `{outcome, record}`. */
  readonly archive: (
    actor: ActorName,
    id: string,
    expectedRevision: number,
    key: string
  ) => Effect.Effect<Answer<WriteAnswer>>
  /** POST /inventory: `{outcome, record, event, replayed?}`. */
  readonly stock: (actor: ActorName, body: Json, key: string) => Effect.Effect<Answer<StockAnswer>>
  /** The platform sets the reserved quantity of a card's balance at the company's location: the card. */
  readonly reserve: (company: CompanyName, cardId: string, reserved: string) => Effect.Effect<Answer<CardAnswer>>
  /** POST /imports, processed to its end unless a dry run: `{job: {state} | null, report}`. */
  readonly importRecords: (actor: ActorName, body: Json, key: string) => Effect.Effect<Answer<ImportAnswer>>
  /** GET /changes: `{records, next_cursor, has_more}`. */
  readonly feed: (actor: ActorName, cursor: string | undefined, limit: number) => Effect.Effect<Answer<FeedAnswer>>
  /** GET /{resource}?limit=100 (and external_id): the records. */
  readonly list: (
    actor: ActorName,
    resource: string,
    externalId?: string
  ) => Effect.Effect<Answer<ReadonlyArray<RecordAnswer>>>
  /** GET /{resource}/{id}: the record. */
  readonly get: (actor: ActorName, resource: string, id: string) => Effect.Effect<Answer<RecordAnswer>>
  /** GET /inventory?limit=100: the cards. */
  readonly inventory: (actor: ActorName) => Effect.Effect<Answer<ReadonlyArray<CardAnswer>>>
}

/** A system under test: each `begin` makes two new companies (A with connections a1 and a2, B with b1). */
export interface Target {
  readonly begin: Effect.Effect<Session, unknown>
}

/**
 * What the model harness drives: a system under test as a `Target` that opens a `Session` of two new
 * companies, and the calls a session answers, in the shape of the API's envelopes.
 */
import type { Effect } from "effect"
import type { Answer } from "./Probe.js"
import type { ActorName, CompanyName } from "./ReferenceModel.js"

/** An envelope as the API answers it. */
export type Json = any

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

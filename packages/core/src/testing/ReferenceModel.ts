/**
 * A reference model of the catalog, written from the spec rather than from the code: two companies (A
 * with connections a1 and a2, B with b1), their categories and products, each connection's external-id
 * mappings, record revisions and unchanged writes, archives, the change feed of each company (its own
 * positions 1, 2, 3..., the connection a change came from, what each reader may see), and the stock of
 * products at one location per company with the platform's reservations. Pure and synchronous: each
 * `plan…` method predicts the answer of one request in the order the use cases check it, and `commit`
 * applies an accepted one with the id the system under test gave the record.
 */
import { all as allScopes, type Scope } from "../Shared/Scope.js"
import type {
  Expected,
  Link,
  Planned,
  StockOutcome,
  StockRequest,
  UpsertOutcome,
  UpsertRequest
} from "./ModelRequests.js"

export type {
  Expected,
  Link,
  Planned,
  StockOutcome,
  StockRequest,
  UpsertOutcome,
  UpsertRequest
} from "./ModelRequests.js"

/** The callers of a model run. */
export type ActorName = "a1" | "a2" | "b1"
/** The companies of a model run. */
export type CompanyName = "A" | "B"

/** A caller's company and scopes. */
export interface ActorSpec {
  readonly company: CompanyName
  readonly scopes: ReadonlyArray<Scope>
  /** Whether the company's location is assigned to the connection as writable (else read-only). */
  readonly writesStock: boolean
}

/** a1 may do everything; a2 (same company) writes the catalog and stock but sees no prices or costs. */
export const actorSpecs: Readonly<Record<ActorName, ActorSpec>> = {
  a1: { company: "A", scopes: allScopes, writesStock: true },
  a2: { company: "A", scopes: ["catalog:read", "catalog:write", "stock:read", "stock:write"], writesStock: false },
  b1: { company: "B", scopes: allScopes, writesStock: true }
}

/** Every caller of a model run. */
export const actorNames: ReadonlyArray<ActorName> = ["a1", "a2", "b1"]

/** The origin of changes the platform makes (reservations), in the feed's origin_connection_id. */
export const platformOrigin = "00000000-0000-0000-0000-000000000000"

/** A part of a record that a scope lets a caller read. */
export type Part = "catalog" | "prices" | "costs" | "stock"

const readScope: Readonly<Record<Part, Scope>> = {
  catalog: "catalog:read",
  prices: "prices:read",
  costs: "costs:read",
  stock: "stock:read"
}

/** A category in the model. */
export interface CategoryRecord {
  readonly resource: "categories"
  readonly id: string
  readonly company: CompanyName
  readonly revision: number
  readonly name: string
  readonly parent: string | null
}

/** A product in the model. */
export interface ProductRecord {
  readonly resource: "products"
  readonly id: string
  readonly company: CompanyName
  readonly revision: number
  readonly name: string
  readonly category: string
  /** With two decimals, as stored; null when the product has none. */
  readonly price: string | null
  /** null counts in whole pieces, as `piece` does. */
  readonly unit: "piece" | "metre" | null
  readonly archived: boolean
}

/** A record in the model. */
export type ModelRecord = CategoryRecord | ProductRecord

/** A change in the model's feed. */
export interface Change {
  readonly resource: "categories" | "products" | "inventory"
  readonly id: string
  readonly revision: number
  readonly operation: "created" | "updated" | "archived"
  /** The writer's connection (its actor name here), or `platform`. */
  readonly origin: ActorName | "platform"
  readonly parts: ReadonlyArray<Part>
}

/** A stock card's quantities in the model. */
export interface Balance {
  /** Canonical decimal strings ("2.5", "0"). */
  readonly physical: string
  readonly reserved: string
  readonly revision: number
}

/** A stock card in the model. */
export interface Card {
  readonly id: string
  readonly product: string
  /** The balance at the company's location, once one was written. */
  readonly balance: Balance | undefined
}

const refuse = (code: string, currentRevision?: number): Expected<never> => ({
  _tag: "Refused",
  code,
  currentRevision
})

const rejected = <V>(expected: Expected<V>): Planned<V> => ({ expected, commit: () => undefined })

// Stock quantities as counts of thousandths, exact in a bigint.
const units = (value: string): bigint => {
  const [integer = "0", fraction = ""] = value.split(".")
  return BigInt(integer) * 1000n + BigInt(fraction.padEnd(3, "0") || "0")
}
const decimal = (thousandths: bigint): string => {
  const whole = thousandths / 1000n
  const fraction = (thousandths % 1000n).toString().padStart(3, "0").replace(/0+$/, "")
  return fraction === "" ? whole.toString() : `${whole}.${fraction}`
}
const maxStock = units("999999999.999")

/** Money with exactly two decimals, as the catalog stores it ("10.5" -> "10.50", "007" -> "7.00"). */
export const money = (value: string): string => {
  const [integer = "0", fraction = ""] = value.split(".")
  return `${integer.replace(/^0+(?=\d)/, "")}.${fraction.padEnd(2, "0")}`
}

/** The canonical form of a stock quantity ("2.50" -> "2.5", "007" -> "7"). */
export const quantity = (value: string): string => decimal(units(value))

/** The reference model: records, mappings, revisions, the change feed and stock, written from the spec. */
export class CatalogModel {
  readonly records = new Map<string, ModelRecord>()
  /** `actor|resource|external_id` -> record id: each connection's mappings. */
  private readonly byExternal = new Map<string, string>()
  /** `actor|resource|record id` -> external id. */
  private readonly byRecord = new Map<string, string>()
  readonly feeds: Record<CompanyName, Array<Change>> = { A: [], B: [] }
  /** How many of its company's changes each reader has read. */
  readonly delivered: Record<ActorName, number> = { a1: 0, a2: 0, b1: 0 }
  /** Stock cards by product id. */
  readonly cards = new Map<string, Card>()

  clone(): CatalogModel {
    const copy = new CatalogModel()
    for (const [k, v] of this.records) copy.records.set(k, v)
    for (const [k, v] of this.byExternal) copy.byExternal.set(k, v)
    for (const [k, v] of this.byRecord) copy.byRecord.set(k, v)
    copy.feeds.A.push(...this.feeds.A)
    copy.feeds.B.push(...this.feeds.B)
    Object.assign(copy.delivered, this.delivered)
    for (const [k, v] of this.cards) copy.cards.set(k, v)
    return copy
  }

  /** The record `actor` maps as `externalId`. */
  mapped(actor: ActorName, resource: ModelRecord["resource"], externalId: string): ModelRecord | undefined {
    const id = this.byExternal.get(`${actor}|${resource}|${externalId}`)
    return id === undefined ? undefined : this.records.get(id)
  }

  /** The external id `actor` maps a record as, null without a mapping. */
  externalIdOf(actor: ActorName, resource: string, id: string): string | null {
    return this.byRecord.get(`${actor}|${resource}|${id}`) ?? null
  }

  private map(actor: ActorName, resource: string, externalId: string, id: string) {
    this.byExternal.set(`${actor}|${resource}|${externalId}`, id)
    this.byRecord.set(`${actor}|${resource}|${id}`, externalId)
  }

  /** The record a Link names for `actor`: by its mapping, or by id within the company. */
  resolve(actor: ActorName, resource: ModelRecord["resource"], link: Link): ModelRecord | undefined {
    if ("externalId" in link) return this.mapped(actor, resource, link.externalId)
    const record = this.records.get(link.id)
    return record?.resource === resource && record.company === actorSpecs[actor].company ? record : undefined
  }

  private append(company: CompanyName, change: Change) {
    this.feeds[company].push(change)
  }

  /** Ancestors of a category, nearest first. */
  private ancestors(id: string): ReadonlyArray<string> {
    const chain: Array<string> = []
    let next = (this.records.get(id) as CategoryRecord | undefined)?.parent ?? null
    while (next !== null && !chain.includes(next)) {
      chain.push(next)
      next = (this.records.get(next) as CategoryRecord | undefined)?.parent ?? null
    }
    return chain
  }

  /** POST /{categories|products}/upsert by `actor`. */
  planUpsert(actor: ActorName, request: UpsertRequest): Planned<UpsertOutcome> {
    const spec = actorSpecs[actor]
    const { resource } = request
    // Scopes: combined mode (a price) needs prices:write.
    if (request.price !== undefined && !spec.scopes.includes("prices:write"))
      return rejected(refuse("insufficient_scope"))
    // The record: the connection's mapping, else target_id binds an unmapped record of the company.
    let stored = this.mapped(actor, resource, request.externalId)
    let bind = false
    if (stored !== undefined) {
      if (request.targetId !== undefined && request.targetId !== stored.id) return rejected(refuse("mapping_conflict"))
    } else if (request.targetId !== undefined) {
      const target = this.records.get(request.targetId)
      if (target === undefined || target.resource !== resource || target.company !== spec.company)
        return rejected(refuse("not_found"))
      if (this.externalIdOf(actor, resource, target.id) !== null) return rejected(refuse("mapping_conflict"))
      stored = target
      bind = true
    }
    const expected = request.expectedRevision
    if (stored === undefined) {
      if (expected !== undefined && expected !== 0) return rejected(refuse("revision_conflict", 0))
    } else {
      if (stored.resource === "products" && stored.archived) return rejected(refuse("record_archived"))
      if (expected !== stored.revision) return rejected(refuse("revision_conflict", stored.revision))
    }
    // References resolve in the connection (external ids) or the company (uuids).
    const linkResource = "categories" as const
    const linked =
      request.link === undefined || request.link === null
        ? request.link
        : this.resolve(actor, linkResource, request.link)?.id
    if (request.link !== undefined && request.link !== null && linked === undefined)
      return rejected(refuse("unresolved_reference"))
    const name = request.name ?? stored?.name
    if (resource === "categories") {
      const before = stored as CategoryRecord | undefined
      const parent = linked === undefined ? (before?.parent ?? null) : linked
      if (name === undefined) return rejected(refuse("missing_required_field"))
      if (
        before !== undefined &&
        parent !== null &&
        (parent === before.id || this.ancestors(parent).includes(before.id))
      )
        return rejected(refuse("category_cycle"))
      const unchanged = before !== undefined && before.name === name && before.parent === parent
      return this.planned(
        actor,
        request,
        before,
        bind,
        unchanged,
        name,
        (id, revision) => ({
          resource,
          id,
          company: spec.company,
          revision,
          name,
          parent
        }),
        ["catalog"]
      )
    }
    const before = stored as ProductRecord | undefined
    const category = linked ?? before?.category
    if (name === undefined || category === undefined) return rejected(refuse("missing_required_field"))
    const price = request.price === undefined ? (before?.price ?? null) : money(request.price)
    const unit = request.unit ?? before?.unit ?? null
    const parts: Array<Part> = []
    if (before === undefined) parts.push("catalog", "prices", "costs")
    else {
      if (before.name !== name || before.category !== category || before.unit !== unit) parts.push("catalog")
      if (before.price !== price) parts.push("prices")
    }
    return this.planned(
      actor,
      request,
      before,
      bind,
      before !== undefined && parts.length === 0,
      name,
      (id, revision) => ({
        resource,
        id,
        company: spec.company,
        revision,
        name,
        category,
        price,
        unit,
        archived: false
      }),
      parts
    )
  }

  private planned(
    actor: ActorName,
    request: UpsertRequest,
    before: ModelRecord | undefined,
    bind: boolean,
    unchanged: boolean,
    name: string,
    make: (id: string, revision: number) => ModelRecord,
    parts: ReadonlyArray<Part>
  ): Planned<UpsertOutcome> {
    const revision = before === undefined ? 1 : unchanged ? before.revision : before.revision + 1
    const outcome = before === undefined ? "created" : unchanged ? "unchanged" : "updated"
    return {
      expected: { _tag: "Accepted", value: { outcome, revision, id: before?.id, name } },
      commit: (id) => {
        const recordId = before?.id ?? id
        if (bind || before === undefined) this.map(actor, request.resource, request.externalId, recordId)
        if (unchanged) return
        this.records.set(recordId, make(recordId, revision))
        this.append(actorSpecs[actor].company, {
          resource: request.resource,
          id: recordId,
          revision,
          operation: outcome as "created" | "updated",
          origin: actor,
          parts
        })
      }
    }
  }

  /** DELETE /products/{id} by `actor`. */
  planArchive(
    actor: ActorName,
    id: string,
    expectedRevision: number
  ): Planned<{ outcome: "updated" | "unchanged"; revision: number }> {
    const record = this.records.get(id)
    if (record === undefined || record.resource !== "products" || record.company !== actorSpecs[actor].company)
      return rejected(refuse("not_found"))
    if (record.revision !== expectedRevision) return rejected(refuse("revision_conflict", record.revision))
    if (record.archived)
      return rejected({ _tag: "Accepted", value: { outcome: "unchanged", revision: record.revision } })
    const revision = record.revision + 1
    return {
      expected: { _tag: "Accepted", value: { outcome: "updated", revision } },
      commit: () => {
        this.records.set(id, { ...record, revision, archived: true })
        this.append(record.company, {
          resource: "products",
          id,
          revision,
          operation: "archived",
          origin: actor,
          parts: ["catalog", "prices", "costs"]
        })
      }
    }
  }

  /** POST /inventory by `actor` with a new event id: set, in or out of a product's stock at its company's location. */
  planStock(actor: ActorName, request: StockRequest): Planned<StockOutcome> {
    const spec = actorSpecs[actor]
    const product = this.resolve(actor, "products", request.source)
    if (product === undefined) return rejected(refuse("unresolved_reference"))
    // Products without a unit, or in pieces, count in whole pieces.
    if ((product as ProductRecord).unit !== "metre" && units(request.quantity) % 1000n !== 0n)
      return rejected(refuse("quantity_not_whole"))
    if (!spec.writesStock) return rejected(refuse("location_not_writable"))
    const card = this.cards.get(product.id)
    const current = card?.balance?.revision ?? 0
    if (request.revision !== current) return rejected(refuse("revision_conflict", current))
    const before = units(card?.balance?.physical ?? "0")
    const reserved = units(card?.balance?.reserved ?? "0")
    const q = units(request.quantity)
    const after = request.action === "set" ? q : request.action === "in" ? before + q : before - q
    if (after < 0n) return rejected(refuse("stock_below_zero"))
    if (after > maxStock) return rejected(refuse("quantity_out_of_range"))
    if (after < reserved) return rejected(refuse("stock_below_reserved"))
    const unchanged = card?.balance !== undefined && after === before
    const revision = unchanged ? current : current + 1
    const outcome = card?.balance === undefined ? "created" : unchanged ? "unchanged" : "updated"
    return {
      expected: {
        _tag: "Accepted",
        value: { outcome, cardId: card?.id, before: decimal(before), after: decimal(after), revision }
      },
      commit: (cardId) => {
        if (unchanged) return
        const id = card?.id ?? cardId
        this.cards.set(product.id, {
          id,
          product: product.id,
          balance: { physical: decimal(after), reserved: decimal(reserved), revision }
        })
        this.append(spec.company, {
          resource: "inventory",
          id,
          revision,
          operation: card?.balance === undefined ? "created" : "updated",
          origin: actor,
          parts: ["stock"]
        })
      }
    }
  }

  /** The platform sets the reserved quantity of a card's balance (orders); physical stock is kept. */
  planReserve(product: string, reserved: string): Planned<Balance> {
    const card = this.cards.get(product)
    const record = this.records.get(product)
    if (card === undefined || record === undefined) throw new Error(`no stock card of product ${product} in the model`)
    const balance: Balance = {
      physical: card.balance?.physical ?? "0",
      reserved: quantity(reserved),
      revision: (card.balance?.revision ?? 0) + 1
    }
    return {
      expected: { _tag: "Accepted", value: balance },
      commit: () => {
        this.cards.set(product, { ...card, balance })
        this.append(record.company, {
          resource: "inventory",
          id: card.id,
          revision: balance.revision,
          operation: "updated",
          origin: "platform",
          parts: ["stock"]
        })
      }
    }
  }

  /** Whether `actor` may read a change: one of its parts is readable with the actor's scopes. */
  sees(actor: ActorName, change: Change): boolean {
    return change.parts.some((part) => actorSpecs[actor].scopes.includes(readScope[part]))
  }

  /** The changes of the actor's company it has not read yet and may see, in order. */
  unread(actor: ActorName): ReadonlyArray<Change> {
    return this.feeds[actorSpecs[actor].company].slice(this.delivered[actor]).filter((c) => this.sees(actor, c))
  }

  /** The catalog records of the actor's company a list shows (archived products left out), by id. */
  listed(actor: ActorName, resource: ModelRecord["resource"]): ReadonlyArray<ModelRecord> {
    return Array.from(this.records.values())
      .filter(
        (r) =>
          r.resource === resource &&
          r.company === actorSpecs[actor].company &&
          !(r.resource === "products" && r.archived)
      )
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  }

  /** The stock cards of the actor's company, by id. */
  cardsOf(actor: ActorName): ReadonlyArray<Card> {
    return Array.from(this.cards.values())
      .filter((card) => this.records.get(card.product)?.company === actorSpecs[actor].company)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  }
}

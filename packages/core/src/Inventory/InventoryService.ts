import { Clock, Context, Effect, Layer, Option } from "effect"
import { Accounts } from "../Auth/Accounts.js"
import { CurrentPrincipal, type Principal } from "../Auth/Principal.js"
import { RecordNotFound, RevisionConflict, RuleViolation, ScopeDenied } from "../Shared/Errors.js"
import { CatalogRepository } from "../Catalog/CatalogRepository.js"
import { Mappings } from "../Catalog/Mappings.js"
import { ChangeLog } from "../Changes/ChangeLog.js"
import { canonical } from "../internal/Shared/Decimal.js"
import { Ids, type RecordId } from "../Shared/Ids.js"
import { describe } from "../Shared/Reference.js"
import type { Scope } from "../Shared/Scope.js"
import { Transactor } from "../Shared/Transactor.js"
import { command, runDirect } from "../Writes/WriteCommand.js"
import {
  renderCard,
  sourceResource,
  type SourceKind,
  type StockCard,
  type StockCardRecord,
  type StockEventRecord,
  type StockWrite,
  withBalance
} from "./Inventory.js"
import {
  LocationNotWritable,
  ReservationConflict,
  StockEventConflict,
  StockNotEnabled,
  StockRuleViolation
} from "./InventoryErrors.js"
import { InventoryRepository } from "./InventoryRepository.js"
import { apply, countsInPieces, empty, violatesWholeNumbers } from "../internal/Inventory/StockRules.js"

/** What a stock write did to its card. */
export type StockOutcome = "created" | "updated" | "unchanged"

/** The result of POST /inventory: the card after the write and the event it recorded. */
export interface StockWriteResult {
  readonly outcome: StockOutcome
  readonly record: StockCardRecord
  readonly event: StockEventRecord
  /** Present on a repeated event_id: the original result is returned and nothing is written again. */
  readonly replayed?: boolean
}

/** The page and filters of a stock list. */
export interface InventoryListParams {
  readonly limit: number
  readonly cursor?: string | undefined
  readonly sourceKind?: SourceKind | undefined
  readonly sourceId?: string | undefined
  readonly locationId?: string | undefined
}

/** A page of stock cards. */
export interface InventoryPage {
  readonly records: ReadonlyArray<StockCardRecord>
  readonly next_cursor: string | null
  readonly has_more: boolean
}

/** Stock features need an active stock package and an enabled inventory module; then the scope. */
export const requireStock = (
  principal: Principal,
  scope: Scope
): Effect.Effect<void, StockNotEnabled | ScopeDenied> => {
  if (!principal.features.stock) {
    return Effect.fail(
      new StockNotEnabled({ message: "stock features need an active stock package and an enabled inventory module" })
    )
  }
  return principal.scopes.has(scope)
    ? Effect.void
    : Effect.fail(new ScopeDenied({ message: `this operation needs the scope ${scope}`, required: [scope] }))
}

/** What makes two writes with one event_id the same event: the connection and the body by value. */
const fingerprintOf = (principal: Principal, body: StockWrite): string =>
  JSON.stringify([
    principal.connectionId,
    body.event_id,
    body.source_kind,
    typeof body.source_id === "string" ? body.source_id : { external_id: body.source_id.external_id },
    body.location_id,
    body.action,
    canonical(body.quantity),
    body.revision,
    body.note
  ])

const issue = (path: string, message: string) => [{ path, message }]

/** A write lost a race for its event_id to a concurrent write of the same event. */
class EventRace {
  readonly _tag = "EventRace"
}

/**
 * The inventory use cases: stock writes (POST /inventory), reading one card and listing cards. Every
 * method acts for the CurrentPrincipal inside its company and needs the company's stock features.
 */
export class InventoryService extends Context.Service<InventoryService>()("@catalog-sync/core/InventoryService", {
  make: Effect.gen(function* () {
    const repository = yield* InventoryRepository
    const catalog = yield* CatalogRepository
    const mappings = yield* Mappings
    const accounts = yield* Accounts
    const transactor = yield* Transactor
    const changeLog = yield* ChangeLog
    const ids = yield* Ids

    const now = Clock.currentTimeMillis.pipe(Effect.map((millis) => new Date(millis).toISOString()))

    /** The caller's external ids of the cards' sources, in one round trip per source kind. */
    const sourceExternalIds = (principal: Principal, cards: ReadonlyArray<StockCard>) =>
      Effect.gen(function* () {
        const out = new Map<string, string>()
        for (const kind of ["product", "option"] as const) {
          const sources = cards.filter((c) => c.sourceKind === kind).map((c) => c.sourceId)
          if (sources.length === 0) continue
          const found = yield* mappings.externalIdsOf(
            { companyId: principal.company.id, connectionId: principal.connectionId, resource: sourceResource(kind) },
            sources
          )
          for (const [id, externalId] of found) out.set(`${kind}|${id}`, externalId)
        }
        return (card: StockCard) => renderCard(card, out.get(`${card.sourceKind}|${card.sourceId}`) ?? null)
      })

    /** The source record a StockWrite names, resolved like catalog References. */
    const resolveSource = (principal: Principal, body: StockWrite) =>
      Effect.gen(function* () {
        const resource = sourceResource(body.source_kind)
        const ref = body.source_id
        const id =
          typeof ref === "string"
            ? (ref as RecordId)
            : Option.getOrUndefined(
                yield* mappings.find(
                  { companyId: principal.company.id, connectionId: principal.connectionId, resource },
                  ref.external_id
                )
              )
        const record = id === undefined ? Option.none() : yield* catalog.get(principal.company.id, resource, id)
        if (Option.isNone(record)) {
          const where = typeof ref === "string" ? "company" : "connection"
          return yield* new RuleViolation({
            reason: "unresolved_reference",
            message: `$.source_id: no ${resource} record ${describe(ref)} in this ${where}`,
            issues: issue("$.source_id", `no ${resource} record ${describe(ref)} in this ${where}`)
          })
        }
        if (body.source_kind === "product" && record.value.data.kind === "bundle") {
          return yield* new StockRuleViolation({
            reason: "source_not_stocked",
            message: "a bundle has no stock of its own; write the stock of its component products",
            issues: issue("$.source_id", "is a bundle product")
          })
        }
        return record.value
      })

    /** The location must belong to the company and be assigned to the connection as writable. */
    const checkLocation = (principal: Principal, locationId: string) =>
      Effect.gen(function* () {
        const locations = yield* accounts.listLocations(principal.company.id)
        if (!locations.some((l) => l.id === locationId)) {
          return yield* new StockRuleViolation({
            reason: "unknown_location",
            message: `$.location_id: no location ${locationId} in this company`,
            issues: issue("$.location_id", `no location ${locationId} in this company`)
          })
        }
        const assigned = (yield* accounts.assignments(principal.connectionId)).find((a) => a.location_id === locationId)
        if (assigned === undefined || !assigned.writable) {
          return yield* new LocationNotWritable({
            message: `location ${locationId} is not assigned to this connection as writable`,
            location_id: locationId
          })
        }
      })

    /** A repeated event: the original result when it is the same write, else a conflict. */
    const replay = (principal: Principal, body: StockWrite, fingerprint: string) =>
      Effect.gen(function* () {
        const found = yield* repository.findEvent(principal.company.id, body.event_id)
        if (Option.isNone(found)) return Option.none<StockWriteResult>()
        if (found.value.fingerprint !== fingerprint) {
          return yield* new StockEventConflict({
            message: `event_id ${body.event_id} was already used for a different stock write; use a new event_id for a new event`,
            event_id: body.event_id
          })
        }
        return Option.some({ ...(found.value.result as unknown as StockWriteResult), replayed: true })
      })

    const apply_ = (principal: Principal, body: StockWrite, fingerprint: string) =>
      Effect.gen(function* () {
        const replayed = yield* replay(principal, body, fingerprint)
        if (Option.isSome(replayed)) return replayed.value
        const source = yield* resolveSource(principal, body)
        const quantity = canonical(body.quantity)
        if (violatesWholeNumbers(quantity, countsInPieces(body.source_kind, source.data.unit))) {
          return yield* new StockRuleViolation({
            reason: "quantity_not_whole",
            message: `$.quantity: ${body.quantity} is not a whole number; this product is counted in pieces`,
            issues: issue("$.quantity", "must be a whole number for a product counted in pieces")
          })
        }
        yield* checkLocation(principal, body.location_id)

        const companyId = principal.company.id
        const at = yield* now
        const existingCard = yield* repository.findItemBySource(companyId, body.source_kind, source.id)
        const card = Option.isSome(existingCard)
          ? existingCard.value
          : yield* repository.ensureItem({
              id: (yield* ids.next) as RecordId,
              companyId,
              sourceKind: body.source_kind,
              sourceId: source.id,
              createdAt: at
            })
        const balance = card.balances.find((b) => b.locationId === body.location_id)
        const currentRevision = balance?.revision ?? 0
        if (body.revision !== currentRevision) {
          return yield* new RevisionConflict({
            message:
              balance === undefined
                ? `stock card ${card.id} has no balance at location ${body.location_id} yet; send revision 0`
                : `the balance of stock card ${card.id} at location ${body.location_id} is at revision ${currentRevision}, not ${body.revision}`,
            current_revision: currentRevision,
            expected_revision: body.revision
          })
        }
        const before = balance ?? empty
        const applied = apply(before, body.action, quantity)
        if (applied._tag === "Refused") {
          const refusal = applied.refusal
          if (refusal.reason === "stock_below_reserved") {
            return yield* new ReservationConflict({
              message: `${refusal.message}; read the balance again`,
              location_id: body.location_id,
              reserved: before.reserved,
              physical: before.physical,
              requested_physical: refusal.physical
            })
          }
          return yield* new StockRuleViolation({
            reason: refusal.reason,
            message: refusal.message,
            issues: issue("$.quantity", refusal.message)
          })
        }
        const unchanged = balance !== undefined && applied.quantities.physical === balance.physical
        let after = card
        if (!unchanged) {
          const saved = {
            companyId,
            itemId: card.id,
            locationId: body.location_id,
            ...applied.quantities,
            revision: currentRevision + 1,
            updatedAt: at
          }
          yield* repository.saveBalance(saved, currentRevision)
          after = withBalance(card, saved)
          yield* changeLog.append({
            companyId,
            resource: "inventory",
            recordId: card.id,
            revision: saved.revision,
            operation: card.balances.length === 0 ? "created" : "updated",
            originConnectionId: principal.connectionId,
            at,
            parts: ["stock"]
          })
        }
        const render = yield* sourceExternalIds(principal, [after])
        const result: StockWriteResult = {
          outcome: balance === undefined ? "created" : unchanged ? "unchanged" : "updated",
          record: render(after),
          event: {
            event_id: body.event_id,
            item_id: card.id,
            location_id: body.location_id,
            action: body.action,
            quantity,
            note: body.note,
            physical_before: before.physical,
            physical_after: applied.quantities.physical,
            revision: unchanged ? currentRevision : currentRevision + 1,
            connection_id: principal.connectionId,
            at
          }
        }
        const inserted = yield* repository.insertEvent({
          companyId,
          eventId: body.event_id,
          connectionId: principal.connectionId,
          fingerprint,
          itemId: card.id,
          locationId: body.location_id,
          result: result as unknown as Record<string, unknown>,
          at
        })
        if (!inserted) return yield* Effect.fail(new EventRace())
        return result
      })

    /**
     * Applies a stock write in one transaction with its balance, event and change entry. A repeated
     * event_id replays the original result (same write) or is refused (different write).
     */
    const applyWrite = (body: StockWrite) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        const fingerprint = fingerprintOf(principal, body)
        // Joins the caller's transaction although a failure is caught below: a write that lost its event to
        // a concurrent write of the same event wrote nothing (its balance's compare-and-set failed, or it
        // changed no balance), so the replayed answer commits alone; any other failure fails the caller.
        return yield* transactor.atomically(apply_(principal, body, fingerprint)).pipe(
          // A concurrent write of the same event may have committed first: it decides, not our error.
          Effect.catchIf(
            (error): error is EventRace | RevisionConflict =>
              error instanceof EventRace || error._tag === "RevisionConflict",
            (error) =>
              Effect.flatMap(replay(principal, body, fingerprint), (found) =>
                Option.isSome(found)
                  ? Effect.succeed(found.value)
                  : error instanceof EventRace
                    ? Effect.die(new Error("event race without an event"))
                    : Effect.fail(error)
              )
          )
        )
      })

    /** One card by its inventory item id; a product or option id is not found. */
    const get = (id: string) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        yield* requireStock(principal, "stock:read")
        const card = yield* repository.findItem(principal.company.id, id as RecordId)
        if (Option.isNone(card)) {
          return yield* new RecordNotFound({
            resource: "inventory",
            message: `no inventory item ${id} in this company (ids are stock card ids, not product ids)`
          })
        }
        const render = yield* sourceExternalIds(principal, [card.value])
        return render(card.value)
      })

    /** A cursor page of cards in id order. */
    const list = (params: InventoryListParams) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        yield* requireStock(principal, "stock:read")
        const rows = yield* repository.listItems(principal.company.id, {
          limit: params.limit + 1,
          cursor: params.cursor as RecordId | undefined,
          sourceKind: params.sourceKind,
          sourceId: params.sourceId as RecordId | undefined,
          locationId: params.locationId
        })
        const page = rows.slice(0, params.limit)
        const render = yield* sourceExternalIds(principal, page)
        const hasMore = rows.length > params.limit
        return {
          records: page.map(render),
          next_cursor: hasMore ? page[page.length - 1]!.id : null,
          has_more: hasMore
        } satisfies InventoryPage
      })

    /** The write's checks that need no database, run before an idempotent replay too. */
    const authorizeWrite = Effect.flatMap(CurrentPrincipal, (principal) => requireStock(principal, "stock:write"))

    /** POST /inventory as a write command (see `WriteRunner`). */
    const writeCommand = (body: StockWrite) => command({ authorize: authorizeWrite, run: applyWrite(body) })

    const write = (body: StockWrite) => runDirect(writeCommand(body))

    return { authorizeWrite, write, writeCommand, get, list } as const
  })
}) {
  /** The service over its ports (the layer Effect 3's `Effect.Service` generated). */
  static readonly Default = Layer.effect(this, this.make)
}

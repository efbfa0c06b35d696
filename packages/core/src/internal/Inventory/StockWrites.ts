import { Clock, Effect, Option } from "effect"
import { CurrentPrincipal, type Principal } from "../../Auth/Principal.js"
import { ChangeLog } from "../../Changes/ChangeLog.js"
import { canonical } from "../Shared/Decimal.js"
import { apply, countsInPieces, empty, violatesWholeNumbers } from "./StockRules.js"
import { RevisionConflict } from "../../Shared/Errors.js"
import { Ids, type RecordId } from "../../Shared/Ids.js"
import { Transactor } from "../../Shared/Transactor.js"
import { command, runDirect } from "../../Writes/WriteCommand.js"
import { makeCardRenderer } from "./CardRendering.js"
import { type StockCardRecord, type StockEventRecord, type StockWrite, withBalance } from "../../Inventory/Inventory.js"
import { ReservationConflict, StockEventConflict, StockRuleViolation } from "../../Inventory/InventoryErrors.js"
import { InventoryRepository } from "../../Inventory/InventoryRepository.js"
import { requireStock } from "./StockAccess.js"
import { fingerprintOf, issue, makeStockWriteChecks } from "./StockWriteChecks.js"

/** What a stock write did to its card. */
export type StockOutcome = "created" | "updated" | "unchanged"

/** The result of POST /inventory: the card after the write and the event it recorded. */
export type StockWriteResult = {
  readonly outcome: StockOutcome
  readonly record: StockCardRecord
  readonly event: StockEventRecord
  /** Present on a repeated event_id: the original result is returned and nothing is written again. */
  readonly replayed?: boolean
}

/** A write lost a race for its event_id to a concurrent write of the same event. */
class EventRace {
  readonly _tag = "EventRace"
}

/**
 * The stock write (POST /inventory): the card's balance at a location moved by one event, in one
 * transaction with the event and the change entry.
 */
export const makeStockWrites = Effect.gen(function* () {
  const repository = yield* InventoryRepository
  const transactor = yield* Transactor
  const changeLog = yield* ChangeLog
  const ids = yield* Ids
  const renderFor = yield* makeCardRenderer
  const { checkLocation, resolveSource } = yield* makeStockWriteChecks

  const now = Clock.currentTimeMillis.pipe(Effect.map((millis) => new Date(millis).toISOString()))

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
      // The event's stored result is the result this write answered the first time.
      return Option.some({ ...(found.value.result as StockWriteResult), replayed: true })
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
      const render = yield* renderFor(principal, [after])
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
        result,
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

  /** The write's checks that need no database, run before an idempotent replay too. */
  const authorizeWrite = Effect.flatMap(CurrentPrincipal, (principal) => requireStock(principal, "stock:write"))

  /** POST /inventory as a write command (see `WriteRunner`). */
  const writeCommand = (body: StockWrite) => command({ authorize: authorizeWrite, run: applyWrite(body) })

  const write = (body: StockWrite) => runDirect(writeCommand(body))

  return { authorizeWrite, write, writeCommand } as const
})

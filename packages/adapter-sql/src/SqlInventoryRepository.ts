import { Errors, Ids, Inventory, InventoryRepository } from "@catalog-sync/core"
import { SqlClient, type Statement, SqlSchema } from "effect/sql"
import { Array as Arr, type Context, Effect, Layer, Option, Schema } from "effect"
import { refineErrors } from "./internal/errors.js"
import { chunks } from "./internal/rows.js"
import { inList } from "./internal/inList.js"
import { span } from "./internal/spans.js"

const ItemRow = Schema.Struct({
  id: Ids.RecordId,
  company_id: Ids.CompanyId,
  source_kind: Inventory.SourceKind,
  source_id: Ids.RecordId,
  created_at: Schema.String
})
type ItemRow = typeof ItemRow.Type

const BalanceRow = Schema.Struct({
  company_id: Ids.CompanyId,
  item_id: Ids.RecordId,
  location_id: Schema.String,
  physical: Schema.String,
  reserved: Schema.String,
  incoming: Schema.String,
  revision: Schema.Int,
  updated_at: Schema.String
})
type BalanceRow = typeof BalanceRow.Type

const EventRow = Schema.Struct({
  company_id: Ids.CompanyId,
  event_id: Schema.String,
  connection_id: Ids.ConnectionId,
  fingerprint: Schema.String,
  item_id: Ids.RecordId,
  location_id: Schema.String,
  // JSON text, as catalog documents: the adapter parses it and both engines return it byte for byte.
  result: Schema.fromJsonString(Schema.Record(Schema.String, Schema.Unknown)),
  at: Schema.String
})

const itemColumns = "i.id, i.company_id, i.source_kind, i.source_id, i.created_at"
const balanceColumns =
  "b.company_id, b.item_id, b.location_id, b.physical, b.reserved, b.incoming, b.revision, b.updated_at"

const toBalance = (row: BalanceRow): Inventory.StockBalance => ({
  companyId: row.company_id,
  itemId: row.item_id,
  locationId: row.location_id,
  physical: row.physical,
  reserved: row.reserved,
  incoming: row.incoming,
  revision: row.revision,
  updatedAt: row.updated_at
})

const toBalanceRow = (balance: Inventory.StockBalance): BalanceRow => ({
  company_id: balance.companyId,
  item_id: balance.itemId,
  location_id: balance.locationId,
  physical: balance.physical,
  reserved: balance.reserved,
  incoming: balance.incoming,
  revision: balance.revision,
  updated_at: balance.updatedAt
})

const toCard = (row: ItemRow, balances: ReadonlyArray<BalanceRow>): Inventory.StockCard => ({
  id: row.id,
  companyId: row.company_id,
  sourceKind: row.source_kind,
  sourceId: row.source_id,
  createdAt: row.created_at,
  balances: balances.map(toBalance)
})

const ListRequest = Schema.Struct({
  companyId: Schema.String,
  limit: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  cursor: Schema.optional(Schema.String),
  sourceKind: Schema.optional(Inventory.SourceKind),
  sourceId: Schema.optional(Schema.String),
  locationId: Schema.optional(Schema.String)
})

/** The statement behind `InventoryRepository.listItems`, exported so that each driver can check its plan. */
export const listStatement = (
  sql: SqlClient.SqlClient,
  params: typeof ListRequest.Type
): Statement.Statement<unknown> => {
  const where: Array<Statement.Fragment> = [sql`i.company_id = ${params.companyId}`]
  if (params.cursor !== undefined) where.push(sql`i.id > ${params.cursor}`)
  if (params.sourceKind !== undefined) where.push(sql`i.source_kind = ${params.sourceKind}`)
  if (params.sourceId !== undefined) where.push(sql`i.source_id = ${params.sourceId}`)
  if (params.locationId !== undefined) {
    where.push(
      sql`EXISTS (SELECT 1 FROM stock_balances b WHERE b.company_id = i.company_id AND b.item_id = i.id AND b.location_id = ${params.locationId})`
    )
  }
  return sql`SELECT ${sql.literal(itemColumns)} FROM stock_items i WHERE ${sql.and(where)} ORDER BY i.id LIMIT ${params.limit}`
}

const revisionConflict = (current: number, expected: number) =>
  new Errors.RevisionConflict({
    message: `the balance is at revision ${current}, not ${expected}`,
    current_revision: current,
    expected_revision: expected
  })

/** InventoryRepository over any `SqlClient`. */
export const make: Effect.Effect<
  Context.Service.Shape<typeof InventoryRepository.InventoryRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // Lookups take any string: ids reach them from request paths, and a malformed one is simply not found.
  const findItemRow = SqlSchema.findOneOption({
    Request: Schema.Struct({ companyId: Schema.String, id: Schema.String }),
    Result: ItemRow,
    execute: ({ companyId, id }) =>
      sql`SELECT ${sql.literal(itemColumns)} FROM stock_items i WHERE i.company_id = ${companyId} AND i.id = ${id}`
  })

  const findItemRowBySource = SqlSchema.findOneOption({
    Request: Schema.Struct({ companyId: Schema.String, sourceKind: Inventory.SourceKind, sourceId: Schema.String }),
    Result: ItemRow,
    execute: ({ companyId, sourceId, sourceKind }) =>
      sql`SELECT ${sql.literal(itemColumns)} FROM stock_items i
          WHERE i.company_id = ${companyId} AND i.source_kind = ${sourceKind} AND i.source_id = ${sourceId}`
  })

  // Without a conflict target: the only constraint a fresh id can meet is the one-card-per-source key, and
  // DO NOTHING keeps a PostgreSQL transaction usable when a concurrent writer created the card first.
  const insertItemRow = SqlSchema.void({
    Request: ItemRow,
    execute: (row) => sql`INSERT INTO stock_items ${sql.insert(row)} ON CONFLICT DO NOTHING`
  })

  const listItemRows = SqlSchema.findAll({
    Request: ListRequest,
    Result: ItemRow,
    execute: (request) => listStatement(sql, request)
  })

  const findBalances = SqlSchema.findAll({
    Request: Schema.Struct({ companyId: Schema.String, itemIds: Schema.Array(Schema.String) }),
    Result: BalanceRow,
    execute: ({ companyId, itemIds }) =>
      sql`SELECT ${sql.literal(balanceColumns)} FROM stock_balances b
          WHERE b.company_id = ${companyId} AND b.item_id IN ${inList(sql, itemIds)}
          ORDER BY b.item_id, b.location_id`
  })

  const insertBalanceRow = SqlSchema.findAll({
    Request: BalanceRow,
    Result: Schema.Struct({ revision: Schema.Int }),
    execute: (row) => sql`INSERT INTO stock_balances ${sql.insert(row)} ON CONFLICT DO NOTHING RETURNING revision`
  })

  // The compare-and-set: RETURNING tells in the same statement whether it matched; on PostgreSQL the WHERE
  // is re-checked after waiting for a concurrent writer's row lock, so two racing writers never both match.
  const updateBalanceRow = SqlSchema.findAll({
    Request: Schema.Struct({ row: BalanceRow, expectedRevision: Schema.Int }),
    Result: Schema.Struct({ revision: Schema.Int }),
    execute: ({ expectedRevision, row }) =>
      sql`UPDATE stock_balances
          SET physical = ${row.physical}, reserved = ${row.reserved}, incoming = ${row.incoming},
              revision = ${row.revision}, updated_at = ${row.updated_at}
          WHERE company_id = ${row.company_id} AND item_id = ${row.item_id} AND location_id = ${row.location_id}
            AND revision = ${expectedRevision}
          RETURNING revision`
  })

  const currentRevision = SqlSchema.findOneOption({
    Request: Schema.Struct({ company_id: Schema.String, item_id: Schema.String, location_id: Schema.String }),
    Result: Schema.Struct({ revision: Schema.Int }),
    execute: (key) =>
      sql`SELECT revision FROM stock_balances
          WHERE company_id = ${key.company_id} AND item_id = ${key.item_id} AND location_id = ${key.location_id}`
  })

  const findEventRow = SqlSchema.findOneOption({
    Request: Schema.Struct({ companyId: Schema.String, eventId: Schema.String }),
    Result: EventRow,
    execute: ({ companyId, eventId }) =>
      sql`SELECT company_id, event_id, connection_id, fingerprint, item_id, location_id, result, at
          FROM stock_events WHERE company_id = ${companyId} AND event_id = ${eventId}`
  })

  const insertEventRow = SqlSchema.findAll({
    Request: EventRow,
    Result: Schema.Struct({ event_id: Schema.String }),
    execute: (row) => sql`INSERT INTO stock_events ${sql.insert(row)} ON CONFLICT DO NOTHING RETURNING event_id`
  })

  /** Cards with their balances: one query for the items' balances, chunked for the parameter limit. */
  const withBalances = (companyId: string, rows: ReadonlyArray<ItemRow>) =>
    rows.length === 0
      ? Effect.succeed([])
      : Effect.forEach(chunks(rows.map((r) => r.id)), (itemIds) => findBalances({ companyId, itemIds })).pipe(
          Effect.map((pages) => {
            const byItem = Arr.groupBy(pages.flat(), (b) => b.item_id)
            return rows.map((row) => toCard(row, byItem[row.id] ?? []))
          })
        )

  const oneCard = (companyId: string, row: Option.Option<ItemRow>) =>
    Option.match(row, {
      onNone: () => Effect.succeed(Option.none<Inventory.StockCard>()),
      onSome: (found) => Effect.map(withBalances(companyId, [found]), (cards) => Option.fromNullishOr(cards[0]))
    })

  return InventoryRepository.InventoryRepository.of({
    findItem: (companyId, id) =>
      findItemRow({ companyId, id }).pipe(
        Effect.flatMap((row) => oneCard(companyId, row)),
        refineErrors,
        span("InventoryRepository.findItem", { companyId, id })
      ),

    findItemBySource: (companyId, sourceKind, sourceId) =>
      findItemRowBySource({ companyId, sourceKind, sourceId }).pipe(
        Effect.flatMap((row) => oneCard(companyId, row)),
        refineErrors,
        span("InventoryRepository.findItemBySource", { companyId, sourceKind, sourceId })
      ),

    ensureItem: (item) =>
      Effect.gen(function* () {
        yield* insertItemRow({
          id: item.id,
          company_id: item.companyId,
          source_kind: item.sourceKind,
          source_id: item.sourceId,
          created_at: item.createdAt
        })
        const row = yield* findItemRowBySource({
          companyId: item.companyId,
          sourceKind: item.sourceKind,
          sourceId: item.sourceId
        })
        const card = yield* oneCard(item.companyId, row)
        if (Option.isNone(card))
          return yield* Effect.die(new Error(`stock card of ${item.sourceKind} ${item.sourceId} vanished after insert`))
        return card.value
      }).pipe(
        refineErrors,
        span("InventoryRepository.ensureItem", { companyId: item.companyId, sourceId: item.sourceId })
      ),

    listItems: (companyId, query) =>
      listItemRows({ ...query, companyId }).pipe(
        Effect.flatMap((rows) => withBalances(companyId, rows)),
        refineErrors,
        span("InventoryRepository.listItems", { companyId, limit: query.limit })
      ),

    saveBalance: (balance, expectedRevision) =>
      Effect.gen(function* () {
        const row = toBalanceRow(balance)
        const written =
          expectedRevision === 0 ? yield* insertBalanceRow(row) : yield* updateBalanceRow({ row, expectedRevision })
        if (written.length > 0) return
        const current = yield* currentRevision(row)
        return yield* revisionConflict(
          Option.match(current, { onNone: () => 0, onSome: (r) => r.revision }),
          expectedRevision
        )
      }).pipe(
        refineErrors,
        span("InventoryRepository.saveBalance", {
          companyId: balance.companyId,
          itemId: balance.itemId,
          locationId: balance.locationId,
          expectedRevision
        })
      ),

    findEvent: (companyId, eventId) =>
      findEventRow({ companyId, eventId }).pipe(
        Effect.map(
          Option.map((row): Inventory.StockEvent => ({
            companyId: row.company_id,
            eventId: row.event_id,
            connectionId: row.connection_id,
            fingerprint: row.fingerprint,
            itemId: row.item_id,
            locationId: row.location_id,
            result: row.result,
            at: row.at
          }))
        ),
        refineErrors,
        span("InventoryRepository.findEvent", { companyId, eventId })
      ),

    insertEvent: (event) =>
      insertEventRow({
        company_id: event.companyId,
        event_id: event.eventId,
        connection_id: event.connectionId,
        fingerprint: event.fingerprint,
        item_id: event.itemId,
        location_id: event.locationId,
        result: event.result,
        at: event.at
      }).pipe(
        Effect.map((rows) => rows.length > 0),
        refineErrors,
        span("InventoryRepository.insertEvent", { companyId: event.companyId, eventId: event.eventId })
      )
  })
})

/** InventoryRepository over the `SqlClient` in context. */
export const layer: Layer.Layer<InventoryRepository.InventoryRepository, never, SqlClient.SqlClient> = Layer.effect(
  InventoryRepository.InventoryRepository,
  make
)

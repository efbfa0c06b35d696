import type { StoredRecord } from "@catalog-sync/core"
import type { SqlClient } from "effect/sql"
import { Array as Arr, Effect } from "effect"
import { chunks, type RecordRow, recordRowOf } from "../rows.js"

/**
 * The link tables that mirror a product's index, each keyed by the owning record id: record_categories
 * (for the category filter) and record_components (for "which bundles contain this product"). Only
 * products carry either, so other resources skip their statements.
 */
const linkTables = [
  {
    table: "record_categories",
    owner: "product_id",
    target: "category_id",
    idsOf: (index: StoredRecord.RecordIndex) => index.categoryIds
  },
  {
    table: "record_components",
    owner: "bundle_id",
    target: "component_id",
    idsOf: (index: StoredRecord.RecordIndex) => index.componentIds
  }
] as const

/** A product's rows in one link table, one per distinct id. */
const linkRows = (link: (typeof linkTables)[number], record: StoredRecord.StoredRecord) =>
  Array.from(new Set(link.idsOf(record.index)), (id) => ({
    company_id: record.companyId,
    [link.owner]: record.id,
    [link.target]: id
  }))

/** Whether two id lists hold the same ids, whatever their order and repeats. */
const sameIds = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => {
  const left = new Set(a)
  const right = new Set(b)
  return left.size === right.size && Array.from(left).every((id) => right.has(id))
}

/** The writes of a record with its link rows, over `sql`. */
export const linkWrites = (sql: SqlClient.SqlClient) => {
  const insertRow = (row: typeof RecordRow.Encoded) => sql`INSERT INTO catalog_records ${sql.insert(row)}`

  // On an update with the replaced record's index (`previous`), a table whose ids did not change is left as it is.
  const replaceLinks = (
    record: StoredRecord.StoredRecord,
    replacing: boolean,
    previous?: StoredRecord.RecordIndex | undefined
  ) =>
    Effect.gen(function* () {
      if (record.resource !== "products") return
      for (const link of linkTables) {
        if (replacing && previous !== undefined && sameIds(link.idsOf(previous), link.idsOf(record.index))) continue
        if (replacing) {
          yield* sql`DELETE FROM ${sql(link.table)} WHERE company_id = ${record.companyId} AND ${sql(link.owner)} = ${record.id}`
        }
        const rows = linkRows(link, record)
        if (Arr.isReadonlyArrayNonEmpty(rows)) yield* sql`INSERT INTO ${sql(link.table)} ${sql.insert(rows)}`
      }
    })

  // A new record with its link rows. On PostgreSQL one statement (the link rows in data-modifying CTEs, their
  // ids as one array parameter so that the text does not vary with their count): a product's create makes
  // one round trip inside its transaction instead of up to three. SQLite runs them in turn, in process.
  const insertWithLinks = (record: StoredRecord.StoredRecord) => {
    const row = recordRowOf(record)
    const links =
      record.resource === "products"
        ? linkTables.flatMap((link) => {
            const ids = Array.from(new Set(link.idsOf(record.index)))
            return ids.length === 0 ? [] : [{ link, ids }]
          })
        : []
    const [first, second] = links
    if (first === undefined) return Effect.asVoid(insertRow(row))
    const linkInsert = ({ ids, link }: (typeof links)[number]) =>
      sql`INSERT INTO ${sql(link.table)} (company_id, ${sql(link.owner)}, ${sql(link.target)})
          SELECT ${record.companyId}, ${record.id}, unnest(CAST(${ids} AS TEXT[]))`
    return sql.onDialectOrElse({
      pg: () =>
        Effect.asVoid(
          second === undefined
            ? sql`WITH inserted AS (INSERT INTO catalog_records ${sql.insert(row)}) ${linkInsert(first)}`
            : sql`WITH inserted AS (INSERT INTO catalog_records ${sql.insert(row)}),
                  first_links AS (${linkInsert(first)}) ${linkInsert(second)}`
        ),
      orElse: () => Effect.andThen(insertRow(row), replaceLinks(record, false))
    })
  }

  // An import batch's new records: the rows and then each link table in one multi-row statement per chunk.
  const insertNew = (records: ReadonlyArray<StoredRecord.StoredRecord>) =>
    Effect.gen(function* () {
      for (const chunk of chunks(records, 500))
        yield* sql`INSERT INTO catalog_records ${sql.insert(Arr.map(chunk, recordRowOf))}`
      const products = records.filter((record) => record.resource === "products")
      for (const link of linkTables) {
        const rows = products.flatMap((record) => linkRows(link, record))
        for (const chunk of chunks(rows)) yield* sql`INSERT INTO ${sql(link.table)} ${sql.insert(chunk)}`
      }
    })

  return { replaceLinks, insertWithLinks, insertNew }
}

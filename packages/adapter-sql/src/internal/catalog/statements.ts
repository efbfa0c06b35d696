import type { SqlClient, Statement } from "effect/sql"
import { recordColumns } from "../rows.js"

/**
 * The catalog's two reads whose plans matter most, written once for both engines: a list page and a
 * category's ancestor chain. Exported (through `SqlCatalogRepository`) so that each driver checks its plan.
 */

/** The parameters of a list query, as plain values. */
export interface ListParams {
  readonly companyId: string
  readonly resource: string
  readonly limit: number
  readonly cursor?: string | undefined
  readonly externalId?: { readonly connectionId: string; readonly value: string } | undefined
  readonly includeArchived?: boolean | undefined
  readonly categoryId?: string | undefined
  readonly collectionId?: string | undefined
  readonly brandId?: string | undefined
  readonly active?: boolean | undefined
  /** Each row also carries `mapped_external_id`: the external id this connection's mapping gives it, or null. */
  readonly mappedFor?: string | undefined
}

/**
 * The statement behind `CatalogRepository.list`, exported so that each driver can check its query plan.
 *
 * The table that drives the scan is chosen so that an index delivers rows already in id order and the
 * cursor becomes a range bound on that index: `mappings` for an external id (one row at most),
 * `record_categories` (category index, ordered by product id) for a category, else `catalog_records`
 * itself, where the planner picks the partial "live" index or the filter column's index. Other filters
 * are checked on the rows the scan reaches.
 *
 * CROSS JOIN (with the join condition in WHERE, which both engines accept) pins the driving table on
 * SQLite, whose planner otherwise flips to scanning `catalog_records` and sorting in a temp b-tree once
 * ANALYZE statistics say a category is large, reading the whole company instead of one page. PostgreSQL
 * treats CROSS JOIN as an ordinary inner join and keeps choosing freely.
 */
export const listStatement = (sql: SqlClient.SqlClient, params: ListParams): Statement.Statement<unknown> => {
  const where: Array<Statement.Fragment> = [
    sql`r.company_id = ${params.companyId}`,
    sql`r.resource = ${params.resource}`
  ]
  let from = sql`catalog_records r`
  let idColumn = sql.literal("r.id")
  if (params.externalId !== undefined) {
    from = sql`mappings m CROSS JOIN catalog_records r`
    where.push(
      sql`r.company_id = m.company_id`,
      sql`r.resource = m.resource`,
      sql`r.id = m.record_id`,
      sql`m.company_id = ${params.companyId}`,
      sql`m.connection_id = ${params.externalId.connectionId}`,
      sql`m.resource = ${params.resource}`,
      sql`m.external_id = ${params.externalId.value}`
    )
    if (params.categoryId !== undefined) {
      where.push(
        sql`EXISTS (SELECT 1 FROM record_categories rc WHERE rc.company_id = r.company_id AND rc.product_id = r.id AND rc.category_id = ${params.categoryId})`
      )
    }
  } else if (params.categoryId !== undefined) {
    from = sql`record_categories rc CROSS JOIN catalog_records r`
    where.push(
      sql`r.company_id = rc.company_id`,
      sql`r.id = rc.product_id`,
      sql`rc.company_id = ${params.companyId}`,
      sql`rc.category_id = ${params.categoryId}`
    )
    // Ordering and paging on rc.product_id (equal to r.id) lets the category index serve ORDER BY.
    idColumn = sql.literal("rc.product_id")
  }
  if (params.includeArchived !== true) where.push(sql`r.archived_at IS NULL`)
  if (params.collectionId !== undefined) where.push(sql`r.collection_id = ${params.collectionId}`)
  if (params.brandId !== undefined) where.push(sql`r.brand_id = ${params.brandId}`)
  if (params.active !== undefined) where.push(sql`r.active = ${params.active ? 1 : 0}`)
  if (params.cursor !== undefined) where.push(sql`${idColumn} > ${params.cursor}`)
  // A LEFT JOIN on the mapping's unique (company, connection, resource, record) key: one more key lookup
  // per row of the page, after the driving scan (SQLite never moves a LEFT JOIN's right side first).
  const mapped =
    params.mappedFor === undefined
      ? sql``
      : sql`LEFT JOIN mappings mx ON mx.company_id = r.company_id AND mx.connection_id = ${params.mappedFor} AND mx.resource = r.resource AND mx.record_id = r.id`
  const mappedColumn = sql.literal(params.mappedFor === undefined ? "" : ", mx.external_id AS mapped_external_id")
  return sql`SELECT ${sql.literal(recordColumns)}${mappedColumn} FROM ${from} ${mapped} WHERE ${sql.and(where)} ORDER BY ${idColumn} LIMIT ${params.limit}`
}

/**
 * The statement behind `CatalogRepository.ancestors`, exported so that each driver can check its plan.
 *
 * The chain holds parent ids, nearest first. A parent id whose record is missing still counts (the walk
 * stops after it), as in the in-memory reference; `depth` bounds the walk, which also ends cycles.
 * CROSS JOIN keeps `chain` as the outer loop on SQLite so that each step is one primary-key lookup; with
 * ANALYZE statistics its planner otherwise scans every category of the company at every step.
 */
export const ancestorsStatement = (
  sql: SqlClient.SqlClient,
  params: { readonly companyId: string; readonly categoryId: string; readonly maxDepth: number }
): Statement.Statement<unknown> =>
  sql`WITH RECURSIVE chain (parent_id, depth) AS (
        SELECT parent_id, 1 FROM catalog_records
        WHERE company_id = ${params.companyId} AND resource = 'categories' AND id = ${params.categoryId}
        UNION ALL
        SELECT c.parent_id, chain.depth + 1 FROM chain CROSS JOIN catalog_records c
        WHERE c.company_id = ${params.companyId} AND c.resource = 'categories' AND c.id = chain.parent_id
          AND chain.depth < ${params.maxDepth}
      )
      SELECT parent_id FROM chain WHERE parent_id IS NOT NULL AND depth <= ${params.maxDepth} ORDER BY depth`

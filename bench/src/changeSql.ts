import type Database from "better-sqlite3"

/**
 * The change log's append on SQLite as the server runs it (adapter-sql's `SqlChangeLog.appendStatement`):
 * `count` changes of one company in one statement, numbered after the company's last position. `rows`
 * gives each change's values in the order of `added`'s columns after `ord`; the company id comes last,
 * twice.
 */
export const appendChangesSql = (count: number, row = "?, ?, CAST(? AS INTEGER), ?, ?, ?, CAST(? AS INTEGER)") =>
  `WITH added (ord, resource, record_id, revision, operation, origin_connection_id, at, visibility) AS (VALUES ${Array.from(
    { length: count },
    (_, i) => `(${i + 1}, ${row})`
  ).join(", ")}),
  head (base) AS (SELECT COALESCE(MAX(company_position), 0) FROM changes WHERE company_id = ?)
  INSERT INTO changes (company_id, company_position, resource, record_id, revision, operation, origin_connection_id, at, visibility)
  SELECT ?, head.base + added.ord, added.resource, added.record_id, added.revision, added.operation,
         added.origin_connection_id, added.at, added.visibility
  FROM head CROSS JOIN added`

/** One change appended as the server does, with the arguments of a plain INSERT in the table's column order. */
export const appendChange = (db: Database.Database) => {
  const statement = db.prepare(appendChangesSql(1))
  return {
    run: (
      companyId: string,
      resource: string,
      recordId: string,
      revision: number,
      operation: string,
      originConnectionId: string,
      at: string,
      visibility: number
    ) =>
      statement.run(resource, recordId, revision, operation, originConnectionId, at, visibility, companyId, companyId)
  }
}

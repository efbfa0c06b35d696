import type { SqlClient } from "effect/sql"

/**
 * An `IN` list's values, padded to the next power of two by repeating the last: `IN (...)` means the same,
 * and a statement's text takes one of a few lengths (1, 2, 4, ... ids), not one per count, so that
 * PostgreSQL's prepared statements (a bounded number of texts) and SQLite's statement cache reuse it.
 */
export const padded = <A>(values: ReadonlyArray<A>): ReadonlyArray<A> => {
  let size = 1
  while (size < values.length) size *= 2
  if (values.length === 0 || size === values.length) return values
  const out = values.slice()
  const last = values[values.length - 1]!
  while (out.length < size) out.push(last)
  return out
}

/**
 * The values of a variable-length `IN` list (`column IN ${inList(sql, ids)}`), padded (`padded`): every such
 * list goes through it, which the lint holds (`sql.in` anywhere else is refused, eslint.config.mjs).
 */
export const inList = (sql: SqlClient.SqlClient, values: ReadonlyArray<unknown>) => sql.in(padded(values))

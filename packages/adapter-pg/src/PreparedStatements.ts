import type pg from "pg"

/** Statement texts named at most, over the process; texts beyond them run unnamed. */
export const maxNamedStatements = 200

/**
 * Statements with more parameters run unnamed: their texts vary with their row or id counts (multi-row
 * inserts, long `IN` lists), each would be one more prepared statement held by every connection, and their
 * planning is small next to their execution. adapter-sql pads `IN` lists to powers of two, so that lists of
 * up to 32 ids make a handful of texts per statement, not one per count.
 */
export const maxNamedParameters = 32

/**
 * Runs the parameterised statements of a pool's connections as named prepared statements, so that
 * PostgreSQL parses and plans each text once per connection instead of at every execution (node-postgres
 * sends Parse for a name only the first time on a connection). At a 1 ms round trip this took a create's
 * database CPU down by about a third. The names are this process's (`cs0`, `cs1`, ...): a connection
 * belongs to one pool. No statement reads `*`, so a migration that adds columns cannot change a prepared
 * statement's result type under a running instance.
 */
export const preparingStatements = (pool: pg.Pool): pg.Pool => {
  const names = new Map<string, string>()
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text)
    if (name === undefined && names.size < maxNamedStatements) {
      name = `cs${names.size}`
      names.set(text, name)
    }
    return name
  }
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as (...args: Array<unknown>) => unknown
    client.query = ((...args: Array<unknown>) => {
      const [text, values] = args
      if (
        typeof text === "string" &&
        Array.isArray(values) &&
        values.length > 0 &&
        values.length <= maxNamedParameters
      ) {
        const name = nameOf(text)
        if (name !== undefined) return query({ text, values, name }, ...args.slice(2))
      }
      return query(...args)
    }) as typeof client.query
  })
  return pool
}

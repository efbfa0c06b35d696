import { SqlClient, type SqlError, Statement } from "@effect/sql"
import { Context, Effect, FiberRef, Option } from "effect"
import { CommittedReads } from "../CommittedReads.js"

type Rows = ReadonlyArray<object>

interface Committable {
  readonly commit: () => Effect.Effect<Rows, SqlError.SqlError>
  readonly compile: () => readonly [string, ReadonlyArray<unknown>]
  /** The client's row transform (`transformResultNames`), which the usual path applies too. */
  readonly transformRows?: (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
}

type Reader = Context.Tag.Service<typeof CommittedReads>

/**
 * Runs a statement inside an open transaction on that transaction's connection directly: the connection
 * @effect/sql itself would pick, without the per-statement span, scope and connection lookup around it,
 * which cost several times a SQLite statement (docs/performance.md). Outside a transaction, a read goes to
 * the committed reader when there is one. With tracing on (its `sql.execute` spans are wanted then), or
 * when neither applies, the statement runs as it always does.
 */
const runDirect = (
  statement: Committable,
  usual: () => Effect.Effect<Rows, SqlError.SqlError>,
  reader: Reader | undefined
) =>
  Effect.withFiberRuntime<Rows, SqlError.SqlError>((fiber) => {
    // A statement transformer (Statement.withTransformer) rewrites statements on the usual path only.
    if (
      fiber.getFiberRef(FiberRef.currentTracerEnabled) ||
      fiber.getFiberRef(Statement.currentTransformer)._tag === "Some"
    )
      return usual()
    const transaction = Context.getOption(fiber.currentContext, SqlClient.TransactionConnection)
    if (transaction._tag === "Some") {
      const [text, params] = statement.compile()
      return transaction.value[0].execute(text, params, statement.transformRows)
    }
    // The committed reader answers numbers as numbers; a client asked for bigints keeps its own path.
    if (reader === undefined || Context.get(fiber.currentContext, SqlClient.SafeIntegers)) return usual()
    const [text, params] = statement.compile()
    const rows = reader.read(text, params)
    if (rows === undefined) return usual()
    return Effect.succeed(statement.transformRows === undefined ? rows : statement.transformRows(rows))
  })

const isCommittable = (u: unknown): u is Committable =>
  typeof u === "object" && u !== null && typeof (u as Partial<Committable>).commit === "function"

/**
 * The client with every statement it makes running directly in an open transaction, and its reads outside
 * one on the committed reader when one is given (see `runDirect`).
 * A statement stays what it was in every other respect (a fragment of other statements, `raw`, `values`,
 * `unprepared`), so a client that wraps connections (tests that count or fail statements) still sees
 * every statement: the transaction's connection is the wrapped one.
 */
export const direct = (sql: SqlClient.SqlClient, reader?: Reader): SqlClient.SqlClient => {
  const make = sql as unknown as (...args: ReadonlyArray<unknown>) => unknown
  const client = (...args: ReadonlyArray<unknown>) => {
    const made = make(...args)
    if (!isCommittable(made)) return made
    // An own `commit` on the statement itself: every statement takes the same shape, where a wrapper
    // object per statement made the runtime's property reads slower on every request.
    const usual = made.commit
    ;(made as { commit: Committable["commit"] }).commit = () => runDirect(made, () => usual.call(made), reader)
    return made
  }
  return Object.assign(client, sql)
}

/** The `SqlClient` in context made direct, with the `CommittedReads` in context when a driver provides one. */
export const directClient: Effect.Effect<SqlClient.SqlClient, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const reader = yield* Effect.serviceOption(CommittedReads)
  return direct(sql, Option.getOrUndefined(reader))
})

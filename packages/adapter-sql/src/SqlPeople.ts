import { Accounts, Ids, PanelUser, People } from "@catalog-sync/core"
import { SqlClient, SqlError, SqlSchema } from "effect/sql"
import { Array as Arr, type Context, Effect, Layer, Option, Schema } from "effect"
import { isUniqueViolation, refineErrors } from "./internal/errors.js"
import { Flag, Millis } from "./internal/rows.js"
import { span } from "./internal/spans.js"
import { atomically } from "./internal/transaction.js"

/** A row of `panel_users` without its password hash. */
const UserRow = Schema.Struct({
  ...PanelUser.PanelUser.fields,
  company_id: Schema.NullOr(Ids.CompanyId),
  enabled: Flag
})
const userColumns = (alias: string) =>
  Object.keys(UserRow.fields)
    .map((column) => `${alias}.${column}`)
    .join(", ")

const UserWithHashRow = Schema.Struct({ ...UserRow.fields, password_hash: Schema.String })

const SessionRow = PanelUser.PanelSession
const sessionColumns = Object.keys(SessionRow.fields)

/** A session and its user as one join row, the user's columns prefixed `user_`. */
const SessionWithUserRow = Schema.Struct({
  ...SessionRow.fields,
  ...Object.fromEntries(Object.entries(UserRow.fields).map(([column, schema]) => [`user_${column}`, schema]))
})
const sessionWithUserColumns = [
  ...sessionColumns.map((column) => `s.${column}`),
  ...Object.keys(UserRow.fields).map((column) => `u.${column} AS user_${column}`)
].join(", ")

const userOf = (row: Record<string, unknown>, prefix = ""): PanelUser.PanelUser =>
  Object.fromEntries(
    Object.keys(UserRow.fields).map((column) => [column, row[`${prefix}${column}`]])
  ) as PanelUser.PanelUser

const isUnique = (error: unknown): error is SqlError.SqlError =>
  error instanceof SqlError.SqlError && isUniqueViolation(error)

/** The text just after every text that begins with `prefix`: `prefix` with its last character's successor. */
const successorOf = (prefix: string): string =>
  prefix === ""
    ? "\u{10ffff}"
    : `${prefix.slice(0, -1)}${String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)}`

/** People over any `SqlClient`. */
export const make: Effect.Effect<Context.Service.Shape<typeof People.People>, never, SqlClient.SqlClient> = Effect.gen(
  function* () {
    const sql = yield* SqlClient.SqlClient

    // The unique index on lower(email) is the only constraint a new row (with a fresh id) can violate.
    const insertUserRow = SqlSchema.void({
      Request: UserWithHashRow,
      execute: (row) => sql`INSERT INTO panel_users ${sql.insert(row)}`
    })

    const findUser = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: UserRow,
      execute: (id) => sql`SELECT ${sql.literal(userColumns("u"))} FROM panel_users u WHERE u.id = ${id}`
    })

    const findUserByEmail = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: UserWithHashRow,
      execute: (email) =>
        sql`SELECT ${sql.literal(userColumns("u"))}, u.password_hash FROM panel_users u
          WHERE lower(u.email) = ${email.toLowerCase()}`
    })

    const findUsers = SqlSchema.findAll({
      Request: Schema.NullOr(Schema.String),
      Result: UserRow,
      execute: (companyId) =>
        sql`SELECT ${sql.literal(userColumns("u"))} FROM panel_users u
          WHERE ${companyId === null ? sql.literal("1=1") : sql`u.company_id = ${companyId}`}
          ORDER BY u.created_at, u.id`
    })

    const updated = SqlSchema.findAll({
      Request: Schema.Struct({
        id: Schema.String,
        enabled: Schema.optionalKey(Flag),
        password_hash: Schema.optionalKey(Schema.String)
      }),
      Result: Schema.Struct({ id: Schema.String }),
      execute: ({ id, ...changes }) => sql`UPDATE panel_users SET ${sql.update(changes)} WHERE id = ${id} RETURNING id`
    })

    // On PostgreSQL the company's owner rows are locked first (in one order, so two such changes queue
    // rather than deadlock): the update's check, a statement of its own, then reads what the change queued
    // before it wrote. SQLite runs one writer at a time; there the update is its own check.
    const lockOwnersOf = (id: string) =>
      sql.onDialectOrElse({
        pg: () =>
          sql`SELECT o.id FROM panel_users o WHERE o.role = 'owner'
            AND o.company_id = (SELECT u.company_id FROM panel_users u WHERE u.id = ${id}) ORDER BY o.id FOR UPDATE`,
        orElse: () => Effect.succeed([])
      })
    const disableUnlessLastOwner = (id: string) =>
      sql<{ readonly id: string }>`UPDATE panel_users SET enabled = 0 WHERE id = ${id}
        AND NOT (role = 'owner' AND enabled = 1 AND NOT EXISTS (
          SELECT 1 FROM panel_users o WHERE o.company_id = panel_users.company_id AND o.role = 'owner'
            AND o.enabled = 1 AND o.id <> panel_users.id))
        RETURNING id`

    const insertSessionRow = SqlSchema.void({
      Request: SessionRow,
      execute: (row) => sql`INSERT INTO panel_sessions ${sql.insert(row)}`
    })

    const findSessionRow = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: SessionWithUserRow,
      execute: (id) =>
        sql`SELECT ${sql.literal(sessionWithUserColumns)} FROM panel_sessions s
          JOIN panel_users u ON u.id = s.user_id WHERE s.id = ${id}`
    })

    const deleteSessionsOfRows = SqlSchema.findAll({
      Request: Schema.String,
      Result: Schema.Struct({ id: Schema.String }),
      execute: (userId) => sql`DELETE FROM panel_sessions WHERE user_id = ${userId} RETURNING id`
    })

    // The table has no key column: a row is named by the engine's own row identity.
    const rowIdentity = sql.onDialectOrElse({ pg: () => "ctid", orElse: () => "rowid" })

    /** How many rows a `DELETE … RETURNING` removed. */
    const removedRows = (statement: Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>) =>
      Effect.map(statement, (rows) => rows.length)

    // An aggregate without GROUP BY always returns its one row.
    const failures = SqlSchema.findOne({
      Request: Schema.Struct({ key: Schema.String, since: Schema.Number }),
      Result: Schema.Struct({ count: Millis, oldest: Schema.NullOr(Millis) }),
      execute: ({ key, since }) =>
        sql`SELECT COUNT(*) AS count, MIN(at) AS oldest FROM sign_in_failures WHERE "key" = ${key} AND at >= ${since}`
    })

    return People.People.of({
      insertUser: (user, passwordHash) =>
        insertUserRow({ ...user, password_hash: passwordHash }).pipe(
          Effect.catchIf(isUnique, () =>
            Effect.fail(new Accounts.AccountConflict({ field: "email", message: `the email ${user.email} is taken` }))
          ),
          refineErrors,
          span("People.insertUser", { id: user.id })
        ),

      getUser: (id) => findUser(id).pipe(refineErrors, span("People.getUser", { id })),

      findUserByEmail: (email) =>
        findUserByEmail(email).pipe(
          Effect.map(Option.map((row) => ({ user: userOf(row), passwordHash: row.password_hash }))),
          refineErrors,
          span("People.findUserByEmail")
        ),

      listUsers: (companyId) => findUsers(companyId).pipe(refineErrors, span("People.listUsers")),

      setUserEnabled: (id, enabled) =>
        updated({ id, enabled }).pipe(
          Effect.map((rows) => rows.length > 0),
          refineErrors,
          span("People.setUserEnabled", { id })
        ),

      disableKeepingAnOwner: (id) =>
        Effect.gen(function* () {
          yield* lockOwnersOf(id)
          if ((yield* disableUnlessLastOwner(id)).length > 0) return "disabled" as const
          return Option.isSome(yield* findUser(id)) ? ("last_owner" as const) : ("not_found" as const)
        }).pipe(atomically(sql), refineErrors, span("People.disableKeepingAnOwner", { id })),

      setPasswordHash: (id, passwordHash) =>
        updated({ id, password_hash: passwordHash }).pipe(
          Effect.map((rows) => rows.length > 0),
          refineErrors,
          span("People.setPasswordHash", { id })
        ),

      insertSession: (session) => insertSessionRow(session).pipe(refineErrors, span("People.insertSession")),

      findSession: (id) =>
        findSessionRow(id).pipe(
          Effect.map(
            Option.map((row) => ({
              session: Object.fromEntries(
                sessionColumns.map((column) => [column, (row as Record<string, unknown>)[column]])
              ) as PanelUser.PanelSession,
              user: userOf(row, "user_")
            }))
          ),
          refineErrors,
          span("People.findSession")
        ),

      touchSession: (id, lastSeenAt) =>
        sql`UPDATE panel_sessions SET last_seen_at = ${lastSeenAt} WHERE id = ${id}`.pipe(
          Effect.asVoid,
          refineErrors,
          span("People.touchSession")
        ),

      deleteSession: (id) =>
        sql`DELETE FROM panel_sessions WHERE id = ${id}`.pipe(
          Effect.asVoid,
          refineErrors,
          span("People.deleteSession")
        ),

      deleteSessionsOf: (userId) =>
        deleteSessionsOfRows(userId).pipe(
          Effect.map((rows) => rows.length),
          refineErrors,
          span("People.deleteSessionsOf", { userId })
        ),

      recordFailure: (keys, at, forgetBefore) =>
        Effect.gen(function* () {
          yield* sql`DELETE FROM sign_in_failures WHERE at < ${forgetBefore}`
          if (Arr.isReadonlyArrayNonEmpty(keys)) {
            yield* sql`INSERT INTO sign_in_failures ${sql.insert(Arr.map(keys, (key) => ({ key, at })))}`
          }
        }).pipe(refineErrors, span("People.recordFailure")),

      // One row of each key: rows of one key at one millisecond are alike, and each stands for one attempt.
      forgetFailure: (keys, at) =>
        Effect.forEach(
          keys,
          (key) =>
            sql`DELETE FROM sign_in_failures WHERE ${sql.literal(rowIdentity)} IN (
              SELECT ${sql.literal(rowIdentity)} FROM sign_in_failures WHERE "key" = ${key} AND at = ${at} LIMIT 1)`,
          { discard: true }
        ).pipe(refineErrors, span("People.forgetFailure")),

      countFailures: (key, since) =>
        failures({ key, since }).pipe(
          Effect.map((row) => ({ count: row.count, oldest: row.oldest })),
          Effect.catchTag("NoSuchElementError", () => Effect.succeed({ count: 0, oldest: null })),
          refineErrors,
          span("People.countFailures")
        ),

      clearFailures: (key) =>
        sql`DELETE FROM sign_in_failures WHERE "key" = ${key}`.pipe(
          Effect.asVoid,
          refineErrors,
          span("People.clearFailures")
        ),

      // The keys that begin with `prefix` are those from it up to (not including) it with its last
      // character's successor: a range the key index serves (keys compare by code point on both engines).
      clearFailuresWithPrefix: (prefix) =>
        removedRows(
          sql`DELETE FROM sign_in_failures WHERE "key" >= ${prefix} AND "key" < ${successorOf(prefix)} RETURNING 1 AS removed`
        ).pipe(refineErrors, span("People.clearFailuresWithPrefix")),

      // Bounded: a backlog is worked off over several runs of the upkeep.
      deleteEndedSessions: ({ idleSince, now }, limit) =>
        removedRows(
          sql`DELETE FROM panel_sessions WHERE id IN (
            SELECT id FROM panel_sessions WHERE expires_at <= ${now} OR last_seen_at <= ${idleSince} LIMIT ${limit})
            RETURNING 1 AS removed`
        ).pipe(refineErrors, span("People.deleteEndedSessions")),

      deleteFailuresBefore: (before, limit) =>
        removedRows(
          sql`DELETE FROM sign_in_failures WHERE ${sql.literal(rowIdentity)} IN (
            SELECT ${sql.literal(rowIdentity)} FROM sign_in_failures WHERE at < ${before} LIMIT ${limit})
            RETURNING 1 AS removed`
        ).pipe(refineErrors, span("People.deleteFailuresBefore"))
    })
  }
)

/** People over the `SqlClient` in context. */
export const layer: Layer.Layer<People.People, never, SqlClient.SqlClient> = Layer.effect(People.People, make)

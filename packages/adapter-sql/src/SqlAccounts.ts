import { Accounts, type Errors, Ids } from "@catalog-sync/core"
import { SqlClient, SqlError, SqlSchema } from "effect/sql"
import { Array as Arr, type Context, Effect, Layer, Option, Schema } from "effect"
import { isUniqueViolation, refineErrors } from "./internal/errors.js"
import { inTransaction } from "./internal/transaction.js"
import {
  ApiKeyRow,
  AssignmentRow,
  companyColumns,
  CompanyRow,
  ConnectionRow,
  LocationRow,
  toApiKey,
  toApiKeyRow,
  toAssignment,
  toCompany,
  toCompanyRow
} from "./internal/rows.js"
import { span } from "./internal/spans.js"

type Prefixed<P extends string, F extends Schema.Struct.Fields> = {
  readonly [K in keyof F & string as `${P}${K}`]: F[K]
}

const prefixed = <P extends string, F extends Schema.Struct.Fields>(prefix: P, fields: F): Prefixed<P, F> =>
  Object.fromEntries(Object.entries(fields).map(([column, schema]) => [`${prefix}${column}`, schema])) as Prefixed<P, F>

/** `alias.column AS prefixcolumn, ...`: the select list of one table in a join whose column names clash. */
const selectPrefixed = (alias: string, prefix: string, fields: Schema.Struct.Fields) =>
  Object.keys(fields)
    .map((column) => `${alias}.${column} AS ${prefix}${column}`)
    .join(", ")

/** The columns of one table, taken back out of a decoded join row. */
const unprefixed = <F extends Schema.Struct.Fields>(prefix: string, fields: F, row: object): Schema.Struct.Type<F> =>
  Object.fromEntries(
    Object.keys(fields).map((column) => [column, (row as Record<string, unknown>)[`${prefix}${column}`]])
  ) as Schema.Struct.Type<F>

/** A key with its connection and company, as one join row. */
const GrantRow = Schema.Struct({
  ...prefixed("key_", ApiKeyRow.fields),
  ...prefixed("connection_", ConnectionRow.fields),
  ...prefixed("company_", CompanyRow.fields),
  domain_owner: Schema.NullOr(Ids.CompanyId)
})

const grantColumns = [
  selectPrefixed("k", "key_", ApiKeyRow.fields),
  selectPrefixed("c", "connection_", ConnectionRow.fields),
  selectPrefixed("co", "company_", CompanyRow.fields),
  "d.company_id AS domain_owner"
].join(", ")

/** `column = excluded.column` for every column outside the conflict key: an upsert that replaces the row. */
const replaceColumns = (fields: Schema.Struct.Fields, key: ReadonlyArray<string>) =>
  Object.keys(fields)
    .filter((column) => !key.includes(column))
    .map((column) => `${column} = excluded.${column}`)
    .join(", ")

const columnsOf = (fields: Schema.Struct.Fields) => Object.keys(fields).join(", ")

const isUnique = (error: unknown): error is SqlError.SqlError =>
  error instanceof SqlError.SqlError && isUniqueViolation(error)

/** Accounts over any `SqlClient`. */
export const make: Effect.Effect<
  Context.Service.Shape<typeof Accounts.Accounts>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // One round trip for authentication: the company's domains come from its JSON column, so the join needs
  // no aggregate and reads the same on every engine; the owner of the request's domain (if any company
  // has it) comes from the same statement, through the unique domain index. Without a domain the join
  // compares with NULL and finds nothing.
  const findGrant = SqlSchema.findOneOption({
    Request: Schema.Struct({ keyId: Schema.String, domain: Schema.NullOr(Schema.String) }),
    Result: GrantRow,
    execute: ({ domain, keyId }) =>
      sql`SELECT ${sql.literal(grantColumns)}
          FROM api_keys k
          JOIN connections c ON c.id = k.connection_id
          JOIN companies co ON co.id = k.company_id
          LEFT JOIN company_domains d ON d.domain = ${domain}
          WHERE k.id = ${keyId}`
  })

  // Lookups take any string: ids reach them from request paths, and an id that is not a uuid is simply
  // not found, as in the in-memory reference, instead of failing to encode.
  const findDomainOwner = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: Schema.Struct({ company_id: Ids.CompanyId }),
    execute: (domain) => sql`SELECT company_id FROM company_domains WHERE domain = ${domain}`
  })

  const findCompany = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: CompanyRow,
    execute: (id) => sql`SELECT ${sql.literal(companyColumns("co"))} FROM companies co WHERE co.id = ${id}`
  })

  const findCompanies = SqlSchema.findAll({
    Request: Schema.Void,
    Result: CompanyRow,
    execute: () => sql`SELECT ${sql.literal(companyColumns("co"))} FROM companies co ORDER BY co.created_at, co.id`
  })

  // The primary key conflict is the upsert's; the only constraint left that this statement can violate is
  // the unique storage_slug, which is how saveCompany tells the conflict without reading the message.
  const upsertCompany = SqlSchema.void({
    Request: CompanyRow,
    execute: (row) =>
      sql`INSERT INTO companies ${sql.insert(row)}
          ON CONFLICT (id) DO UPDATE SET ${sql.literal(replaceColumns(CompanyRow.fields, ["id"]))}`
  })

  const deleteDomains = SqlSchema.void({
    Request: Ids.CompanyId,
    execute: (companyId) => sql`DELETE FROM company_domains WHERE company_id = ${companyId}`
  })

  // A domain of another company is skipped, not an error, so the transaction stays usable on PostgreSQL;
  // RETURNING tells which domains were inserted.
  const insertDomains = SqlSchema.findAll({
    Request: Schema.NonEmptyArray(Schema.Struct({ domain: Schema.String, company_id: Ids.CompanyId })),
    Result: Schema.Struct({ domain: Schema.String }),
    execute: (rows) => sql`INSERT INTO company_domains ${sql.insert(rows)} ON CONFLICT DO NOTHING RETURNING domain`
  })

  const findConnection = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: ConnectionRow,
    execute: (id) => sql`SELECT ${sql.literal(columnsOf(ConnectionRow.fields))} FROM connections WHERE id = ${id}`
  })

  const findConnections = SqlSchema.findAll({
    Request: Schema.String,
    Result: ConnectionRow,
    execute: (companyId) =>
      sql`SELECT ${sql.literal(columnsOf(ConnectionRow.fields))} FROM connections
          WHERE company_id = ${companyId} ORDER BY created_at, id`
  })

  const upsertConnection = SqlSchema.void({
    Request: ConnectionRow,
    execute: (row) =>
      sql`INSERT INTO connections ${sql.insert(row)}
          ON CONFLICT (id) DO UPDATE SET ${sql.literal(replaceColumns(ConnectionRow.fields, ["id"]))}`
  })

  const insertKeyRow = SqlSchema.void({
    Request: ApiKeyRow,
    execute: (row) => sql`INSERT INTO api_keys ${sql.insert(row)}`
  })

  const findKeys = SqlSchema.findAll({
    Request: Schema.String,
    Result: ApiKeyRow,
    execute: (companyId) =>
      sql`SELECT ${sql.literal(columnsOf(ApiKeyRow.fields))} FROM api_keys WHERE company_id = ${companyId} ORDER BY created_at, id`
  })

  // COALESCE keeps the first revocation time; RETURNING tells in the same statement whether the key exists.
  const revokeKeyRow = SqlSchema.findAll({
    Request: Schema.Struct({ id: Schema.String, at: Schema.String }),
    Result: Schema.Struct({ id: Schema.String }),
    execute: ({ at, id }) =>
      sql`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ${at}) WHERE id = ${id} RETURNING id`
  })

  const upsertLocation = SqlSchema.void({
    Request: LocationRow,
    execute: (row) =>
      sql`INSERT INTO locations ${sql.insert(row)}
          ON CONFLICT (id) DO UPDATE SET ${sql.literal(replaceColumns(LocationRow.fields, ["id"]))}`
  })

  const findLocations = SqlSchema.findAll({
    Request: Schema.String,
    Result: LocationRow,
    execute: (companyId) =>
      sql`SELECT ${sql.literal(columnsOf(LocationRow.fields))} FROM locations WHERE company_id = ${companyId} ORDER BY created_at, id`
  })

  const upsertAssignment = SqlSchema.void({
    Request: AssignmentRow,
    execute: (row) =>
      sql`INSERT INTO connection_locations ${sql.insert(row)}
          ON CONFLICT (connection_id, location_id) DO UPDATE SET writable = excluded.writable`
  })

  const deleteAssignment = SqlSchema.findAll({
    Request: Schema.Struct({ connection_id: Schema.String, location_id: Schema.String }),
    Result: Schema.Struct({ location_id: Schema.String }),
    execute: ({ connection_id, location_id }) =>
      sql`DELETE FROM connection_locations WHERE connection_id = ${connection_id} AND location_id = ${location_id}
          RETURNING location_id`
  })

  const findAssignments = SqlSchema.findAll({
    Request: Schema.String,
    Result: AssignmentRow,
    execute: (connectionId) =>
      sql`SELECT connection_id, location_id, writable FROM connection_locations
          WHERE connection_id = ${connectionId} ORDER BY location_id`
  })

  /**
   * Every account write tells the other instances, on PostgreSQL, in its own transaction (delivered when
   * it commits): their key caches read the data again (`accountsChannel`). SQLite needs nothing: its
   * version is the database's `data_version`, which every other connection's commit moves.
   */
  const announced = <A, E, R>(
    write: Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | Errors.PersistenceError | SqlError.SqlError, R> =>
    sql.onDialectOrElse({
      pg: () => inTransaction(sql)(Effect.tap(write, () => sql`SELECT pg_notify(${accountsChannel}, 'changed')`)),
      orElse: () => write
    })

  return Accounts.Accounts.of({
    findKey: (keyId, domain) =>
      findGrant({ keyId, domain: domain ?? null }).pipe(
        Effect.map(
          Option.map((row) => ({
            key: toApiKey(unprefixed("key_", ApiKeyRow.fields, row)),
            secretHash: row.key_secret_hash,
            connection: unprefixed("connection_", ConnectionRow.fields, row),
            company: toCompany(unprefixed("company_", CompanyRow.fields, row)),
            domainOwner: Option.fromNullishOr(row.domain_owner)
          }))
        ),
        refineErrors,
        span("Accounts.findKey", { keyId })
      ),

    companyOfDomain: (domain) =>
      findDomainOwner(domain).pipe(
        Effect.map(Option.map((row) => row.company_id)),
        refineErrors,
        span("Accounts.companyOfDomain", { domain })
      ),

    getCompany: (id) =>
      findCompany(id).pipe(Effect.map(Option.map(toCompany)), refineErrors, span("Accounts.getCompany", { id })),

    listCompanies: findCompanies(undefined).pipe(
      Effect.map(Arr.map(toCompany)),
      refineErrors,
      span("Accounts.listCompanies")
    ),

    saveCompany: (company) =>
      Effect.gen(function* () {
        yield* upsertCompany(toCompanyRow(company)).pipe(
          Effect.catchIf(isUnique, () =>
            Effect.fail(
              new Accounts.AccountConflict({
                field: "storage_slug",
                message: `storage_slug ${company.storage_slug} is taken`
              })
            )
          )
        )
        yield* deleteDomains(company.id)
        const domains = Arr.dedupe(company.domains)
        if (!Arr.isReadonlyArrayNonEmpty(domains)) return
        const inserted = yield* insertDomains(Arr.map(domains, (domain) => ({ domain, company_id: company.id })))
        const mine = new Set(inserted.map((row) => row.domain))
        const shared = domains.find((domain) => !mine.has(domain))
        if (shared !== undefined) {
          return yield* new Accounts.AccountConflict({
            field: "domains",
            message: `domain ${shared} belongs to another company`
          })
        }
      }).pipe(
        // The company row and its domains are one write even when the caller opened no transaction; a
        // conflict rolls back both.
        announced,
        inTransaction(sql),
        refineErrors,
        span("Accounts.saveCompany", { id: company.id })
      ),

    getConnection: (id) => findConnection(id).pipe(refineErrors, span("Accounts.getConnection", { id })),

    listConnections: (companyId) =>
      findConnections(companyId).pipe(refineErrors, span("Accounts.listConnections", { companyId })),

    saveConnection: (connection) =>
      upsertConnection(connection).pipe(
        announced,
        refineErrors,
        span("Accounts.saveConnection", { id: connection.id, companyId: connection.company_id })
      ),

    insertKey: (key, secretHash) =>
      insertKeyRow(toApiKeyRow(key, secretHash)).pipe(
        announced,
        refineErrors,
        span("Accounts.insertKey", { keyId: key.id, companyId: key.company_id, connectionId: key.connection_id })
      ),

    listKeys: (companyId) =>
      findKeys(companyId).pipe(Effect.map(Arr.map(toApiKey)), refineErrors, span("Accounts.listKeys", { companyId })),

    revokeKey: (keyId, at) =>
      revokeKeyRow({ id: keyId, at }).pipe(
        announced,
        Effect.map((rows) => rows.length > 0),
        refineErrors,
        span("Accounts.revokeKey", { keyId })
      ),

    saveLocation: (location) =>
      upsertLocation(location).pipe(
        announced,
        refineErrors,
        span("Accounts.saveLocation", { id: location.id, companyId: location.company_id })
      ),

    listLocations: (companyId) =>
      findLocations(companyId).pipe(refineErrors, span("Accounts.listLocations", { companyId })),

    assignLocation: (assignment) =>
      upsertAssignment(assignment).pipe(
        announced,
        refineErrors,
        span("Accounts.assignLocation", { connectionId: assignment.connection_id, locationId: assignment.location_id })
      ),

    unassignLocation: (connectionId, locationId) =>
      deleteAssignment({ connection_id: connectionId, location_id: locationId }).pipe(
        announced,
        Effect.map((rows) => rows.length > 0),
        refineErrors,
        span("Accounts.unassignLocation", { connectionId, locationId })
      ),

    assignments: (connectionId) =>
      findAssignments(connectionId).pipe(
        Effect.map(Arr.map(toAssignment)),
        refineErrors,
        span("Accounts.assignments", { connectionId })
      )
  })
})

/** The PostgreSQL channel on which account writes are announced (see `announced`). */
export const accountsChannel = "catalog_sync_accounts"

/** Accounts over the `SqlClient` in context. */
export const layer: Layer.Layer<Accounts.Accounts, never, SqlClient.SqlClient> = Layer.effect(Accounts.Accounts, make)

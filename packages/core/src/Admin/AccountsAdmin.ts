import { Clock, Context, Effect, Layer, Option, Schema, Struct } from "effect"
import { Int } from "../Resources/CommonFields.js"
import { RecordNotFound, ValidationFailed } from "../Shared/Errors.js"
import { decodeStrict } from "../Catalog/Decode.js"
import { CurrencyCode } from "../Shared/Currency.js"
import { fixed, Money } from "../internal/Shared/Decimal.js"
import { matching, NameText } from "../internal/Shared/Text.js"
import { type CompanyId, type ConnectionId, Ids, UUID } from "../Shared/Ids.js"
import { Scope } from "../Shared/Scope.js"
import { KnownLanguageCode } from "../Shared/Translations.js"
import { Accounts } from "../Auth/Accounts.js"
import { AuditLog, makeRecorder } from "../Audit/AuditLog.js"
import { type ApiKey, generate, hashSecret, maxLifetimeDays, minLifetimeDays } from "../Auth/ApiKey.js"
import { type Company, type Connection, TaxModel } from "../Auth/Company.js"

const Hostname = Schema.String.check(
  matching(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, "must be a lower-case host name")
)

/** The name of a company, connection or location: one line shown as it reads, as record names are. */
const AdminName = NameText(1, 200)

/** A new company: name, currency, languages, tax, storage slug and subscriptions. */
export const CompanyInput = Schema.Struct({
  name: AdminName,
  currency: CurrencyCode,
  main_language: KnownLanguageCode,
  languages: Schema.optionalKey(Schema.Array(KnownLanguageCode)),
  tax_model: TaxModel.pipe(Schema.withDecodingDefaultType(Effect.succeed("unconfigured"))),
  tax_rates: Schema.Array(Money).pipe(Schema.withDecodingDefaultType(Effect.succeed([]))),
  storage_slug: Schema.String.check(
    matching(/^[a-z0-9][a-z0-9-]{1,62}$/, "must be 2-63 lower-case letters, digits or dashes")
  ),
  subscription_active: Schema.Boolean.pipe(Schema.withDecodingDefaultType(Effect.succeed(true))),
  stock_package: Schema.Boolean.pipe(Schema.withDecodingDefaultType(Effect.succeed(false))),
  inventory_module: Schema.Boolean.pipe(Schema.withDecodingDefaultType(Effect.succeed(false))),
  granted_scopes: Schema.Array(Scope).pipe(Schema.withDecodingDefaultType(Effect.succeed([]))),
  domains: Schema.Array(Hostname).pipe(Schema.withDecodingDefaultType(Effect.succeed([])))
})

/** Changes to a company; every key optional. */
export const CompanyPatch = Schema.Struct({
  name: CompanyInput.fields.name,
  currency: CompanyInput.fields.currency,
  main_language: KnownLanguageCode,
  languages: Schema.Array(KnownLanguageCode),
  tax_model: TaxModel,
  tax_rates: Schema.Array(Money),
  storage_slug: CompanyInput.fields.storage_slug,
  enabled: Schema.Boolean,
  subscription_active: Schema.Boolean,
  stock_package: Schema.Boolean,
  inventory_module: Schema.Boolean,
  granted_scopes: Schema.Array(Scope),
  domains: Schema.Array(Hostname)
}).mapFields(Struct.map(Schema.optionalKey))

/** A new API key: its connection, name, scopes and lifetime. */
export const KeyInput = Schema.Struct({
  connection_id: UUID,
  name: NameText(0, 200).pipe(Schema.withDecodingDefaultType(Effect.succeed(""))),
  scopes: Schema.Array(Scope).check(Schema.isMinLength(1, { message: "a key needs at least one scope" })),
  lifetime_days: Int.check(
    Schema.isBetween(
      { minimum: minLifetimeDays, maximum: maxLifetimeDays },
      { message: `must be a whole number of days from ${minLifetimeDays} to ${maxLifetimeDays}` }
    )
  )
})

/** A connection's or location's name, checked as a company's is. */
const NamedInput = Schema.Struct({ name: AdminName })

const singular = { companies: "company", connections: "connection", keys: "key", locations: "location" } as const

const notFound = (resource: keyof typeof singular, id: string) =>
  new RecordNotFound({ resource, message: `no ${singular[resource]} ${id}` })

const mainLanguageEnabled = (company: Company) =>
  company.languages.includes(company.main_language)
    ? Effect.succeed(company)
    : Effect.fail(
        new ValidationFailed({
          message: "the main language must be one of the enabled languages",
          issues: [{ path: "$.languages", message: `must include ${company.main_language}` }]
        })
      )

/** The keys of a patch, for the log: which fields a change touched, never their values. */
const changedFields = (patch: object) => Object.keys(patch).sort().join(",")

/**
 * The setup sequence of the platform (spec section 1): the administrator enables a company and grants
 * scopes; a connection is made for each source system; time-limited keys are created under it. Every
 * change is recorded in the audit log, by the current `Actor`, in the write's transaction.
 */
export class Admin extends Context.Service<Admin>()("@catalog-sync/core/Admin", {
  make: Effect.gen(function* () {
    const accounts = yield* Accounts
    const ids = yield* Ids
    const audited = makeRecorder(yield* AuditLog, ids)
    const now = Clock.currentTimeMillis.pipe(Effect.map((m) => new Date(m).toISOString()))

    const company = (id: string) =>
      accounts
        .getCompany(id)
        .pipe(
          Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound("companies", id)), onSome: Effect.succeed }))
        )
    const connection = (id: string) =>
      accounts
        .getConnection(id)
        .pipe(
          Effect.flatMap(
            Option.match({ onNone: () => Effect.fail(notFound("connections", id)), onSome: Effect.succeed })
          )
        )

    const createCompany = (input: unknown) =>
      Effect.gen(function* () {
        const fields = yield* Effect.fromResult(decodeStrict(CompanyInput, input, "the company"))
        const created: Company = {
          ...fields,
          tax_rates: fields.tax_rates.map((rate) => fixed(rate, 2)),
          id: (yield* ids.next) as CompanyId,
          languages: Array.from(new Set([fields.main_language, ...(fields.languages ?? [])])),
          enabled: true,
          created_at: yield* now
        }
        yield* audited(accounts.saveCompany(created), () => ({
          action: "company.create",
          company_id: created.id,
          target: created.id,
          details: { name: created.name }
        }))
        return created
      })

    const updateCompany = (id: string, patch: unknown) =>
      Effect.gen(function* () {
        const changes = yield* Effect.fromResult(decodeStrict(CompanyPatch, patch, "the company changes"))
        const current = yield* company(id)
        const updated = yield* mainLanguageEnabled({
          ...current,
          ...changes,
          ...(changes.tax_rates === undefined ? {} : { tax_rates: changes.tax_rates.map((rate) => fixed(rate, 2)) }),
          ...(changes.languages === undefined
            ? {}
            : {
                languages: Array.from(new Set([changes.main_language ?? current.main_language, ...changes.languages]))
              })
        })
        yield* audited(accounts.saveCompany(updated), () => ({
          action: "company.update",
          company_id: updated.id,
          target: updated.id,
          details: { fields: changedFields(changes) }
        }))
        return updated
      })

    const grant = (id: string, scopes: ReadonlyArray<string>, granted: boolean) =>
      Effect.gen(function* () {
        const valid = yield* Effect.fromResult(decodeStrict(Schema.Array(Scope), scopes, "the scopes"))
        const current = yield* company(id)
        const next = granted
          ? Array.from(new Set([...current.granted_scopes, ...valid]))
          : current.granted_scopes.filter((scope) => !valid.includes(scope))
        const updated = { ...current, granted_scopes: next }
        yield* audited(accounts.saveCompany(updated), () => ({
          action: granted ? "company.grant_scopes" : "company.revoke_scopes",
          company_id: updated.id,
          target: updated.id,
          details: { scopes: valid.join(",") }
        }))
        return updated
      })

    const createConnection = (companyId: string, name: string) =>
      Effect.gen(function* () {
        yield* Effect.fromResult(decodeStrict(NamedInput, { name }, "the connection"))
        yield* company(companyId)
        const created: Connection = {
          id: (yield* ids.next) as ConnectionId,
          company_id: companyId as CompanyId,
          name,
          enabled: true,
          created_at: yield* now
        }
        yield* audited(accounts.saveConnection(created), () => ({
          action: "connection.create",
          company_id: created.company_id,
          target: created.id,
          details: { name }
        }))
        return created
      })

    const setConnectionEnabled = (id: string, enabled: boolean) =>
      Effect.gen(function* () {
        const updated = { ...(yield* connection(id)), enabled }
        yield* audited(accounts.saveConnection(updated), () => ({
          action: enabled ? "connection.enable" : "connection.disable",
          company_id: updated.company_id,
          target: updated.id
        }))
        return updated
      })

    const renameConnection = (id: string, name: string) =>
      Effect.gen(function* () {
        yield* Effect.fromResult(decodeStrict(NamedInput, { name }, "the connection"))
        const current = yield* connection(id)
        const updated = { ...current, name }
        yield* audited(accounts.saveConnection(updated), () => ({
          action: "connection.rename",
          company_id: updated.company_id,
          target: updated.id,
          details: { from: current.name, to: name }
        }))
        return updated
      })

    /** Creates a key; the token (with its secret) is returned here once and never stored. */
    const createKey = (input: unknown) =>
      Effect.gen(function* () {
        const fields = yield* Effect.fromResult(decodeStrict(KeyInput, input, "the key"))
        const owner = yield* connection(fields.connection_id)
        // A key never holds a scope the company was not granted, so a later grant cannot widen it.
        const grants = (yield* company(owner.company_id)).granted_scopes
        const ungranted = fields.scopes.filter((scope) => !grants.includes(scope))
        if (ungranted.length > 0) {
          return yield* new ValidationFailed({
            message: "a key can only hold scopes granted to its company",
            issues: [{ path: "$.scopes", message: `not granted to the company: ${ungranted.join(", ")}` }]
          })
        }
        const generated = generate()
        const createdAt = yield* Clock.currentTimeMillis
        const key: ApiKey = {
          id: generated.keyId,
          company_id: owner.company_id,
          connection_id: owner.id,
          name: fields.name,
          scopes: Array.from(new Set(fields.scopes)),
          created_at: new Date(createdAt).toISOString(),
          expires_at: new Date(createdAt + fields.lifetime_days * 86_400_000).toISOString(),
          revoked_at: null
        }
        const secretHash = yield* hashSecret(generated.secret)
        yield* audited(accounts.insertKey(key, secretHash), () => ({
          action: "key.create",
          company_id: key.company_id,
          target: key.id,
          details: { connection_id: key.connection_id, scopes: key.scopes.join(","), expires_at: key.expires_at }
        }))
        return { key, token: generated.token }
      })

    const revokeKey = (keyId: string) =>
      Effect.gen(function* () {
        const grant = yield* accounts.findKey(keyId)
        if (Option.isNone(grant)) return yield* notFound("keys", keyId)
        const at = yield* now
        const revoked = yield* audited(accounts.revokeKey(keyId, at), () => ({
          action: "key.revoke",
          company_id: grant.value.key.company_id,
          target: keyId,
          details: { connection_id: grant.value.key.connection_id }
        }))
        if (!revoked) return yield* notFound("keys", keyId)
      })

    const createLocation = (companyId: string, name: string) =>
      Effect.gen(function* () {
        yield* Effect.fromResult(decodeStrict(NamedInput, { name }, "the location"))
        yield* company(companyId)
        const location = { id: yield* ids.next, company_id: companyId as CompanyId, name, created_at: yield* now }
        yield* audited(accounts.saveLocation(location), () => ({
          action: "location.create",
          company_id: location.company_id,
          target: location.id,
          details: { name }
        }))
        return location
      })

    const assignLocation = (connectionId: string, locationId: string, writable: boolean) =>
      Effect.gen(function* () {
        const owner = yield* connection(connectionId)
        const locations = yield* accounts.listLocations(owner.company_id)
        if (!locations.some((l) => l.id === locationId)) return yield* notFound("locations", locationId)
        const assignment = { connection_id: owner.id, location_id: locationId, writable }
        yield* audited(accounts.assignLocation(assignment), () => ({
          action: "location.assign",
          company_id: owner.company_id,
          target: locationId,
          details: { connection_id: owner.id, writable: String(writable) }
        }))
        return assignment
      })

    /** Ends the connection's access to the location; RecordNotFound when it had none. */
    const unassignLocation = (connectionId: string, locationId: string) =>
      Effect.gen(function* () {
        const owner = yield* connection(connectionId)
        const assigned = yield* accounts.assignments(owner.id)
        if (!assigned.some((a) => a.location_id === locationId)) return yield* notFound("locations", locationId)
        yield* audited(accounts.unassignLocation(owner.id, locationId), () => ({
          action: "location.unassign",
          company_id: owner.company_id,
          target: locationId,
          details: { connection_id: owner.id }
        }))
      })

    return {
      createCompany,
      updateCompany,
      getCompany: company,
      listCompanies: accounts.listCompanies,
      grantScopes: (id: string, scopes: ReadonlyArray<string>) => grant(id, scopes, true),
      revokeScopes: (id: string, scopes: ReadonlyArray<string>) => grant(id, scopes, false),
      createConnection,
      setConnectionEnabled,
      renameConnection,
      listConnections: (companyId: string) => accounts.listConnections(companyId as CompanyId),
      createKey,
      listKeys: (companyId: string) => accounts.listKeys(companyId as CompanyId),
      revokeKey,
      createLocation,
      listLocations: (companyId: string) => accounts.listLocations(companyId as CompanyId),
      assignLocation,
      unassignLocation
    } as const
  })
}) {
  /** The service over its ports (the layer Effect 3's `Effect.Service` generated). */
  static readonly Default = Layer.effect(this, this.make)
}

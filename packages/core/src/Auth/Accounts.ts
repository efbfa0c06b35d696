import { Context, type Effect, type Option, Schema } from "effect"
import type { PersistenceError } from "../Shared/Errors.js"
import { CompanyId, ConnectionId, UUID } from "../Shared/Ids.js"
import type { ApiKey } from "./ApiKey.js"
import type { Company, Connection } from "./Company.js"

/** A stock location of a company. */
export const Location = Schema.Struct({
  id: UUID,
  company_id: CompanyId,
  name: Schema.String,
  created_at: Schema.String
}).annotate({ identifier: "Location" })
export type Location = typeof Location.Type

/** A location assigned to a connection; only writable ones accept stock writes from it. */
export const LocationAssignment = Schema.Struct({
  connection_id: ConnectionId,
  location_id: UUID,
  writable: Schema.Boolean
}).annotate({ identifier: "LocationAssignment" })
export type LocationAssignment = typeof LocationAssignment.Type

/** Everything authentication needs about a presented key, read in one round trip. */
export interface KeyGrant {
  readonly key: ApiKey
  readonly secretHash: string
  readonly connection: Connection
  readonly company: Company
  /**
   * The company that owns the domain passed to `findKey`, read in the same round trip; none when no
   * domain was passed or no company has it.
   */
  readonly domainOwner: Option.Option<CompanyId>
}

/**
 * Companies, connections, keys and locations: the platform's account data. Writes are made by the
 * administration use cases; requests only read it.
 */
export class Accounts extends Context.Service<
  Accounts,
  {
    /** The key with its connection and company; with a domain, also that domain's owner (see `KeyGrant`). */
    readonly findKey: (keyId: string, domain?: string) => Effect.Effect<Option.Option<KeyGrant>, PersistenceError>
    readonly companyOfDomain: (domain: string) => Effect.Effect<Option.Option<CompanyId>, PersistenceError>
    readonly getCompany: (id: string) => Effect.Effect<Option.Option<Company>, PersistenceError>
    readonly listCompanies: Effect.Effect<ReadonlyArray<Company>, PersistenceError>
    /** Inserts or replaces the company (its domains included). Fails on a storage_slug or domain taken. */
    readonly saveCompany: (company: Company) => Effect.Effect<void, PersistenceError | AccountConflict>
    readonly getConnection: (id: string) => Effect.Effect<Option.Option<Connection>, PersistenceError>
    readonly listConnections: (companyId: CompanyId) => Effect.Effect<ReadonlyArray<Connection>, PersistenceError>
    readonly saveConnection: (connection: Connection) => Effect.Effect<void, PersistenceError>
    readonly insertKey: (key: ApiKey, secretHash: string) => Effect.Effect<void, PersistenceError>
    readonly listKeys: (companyId: CompanyId) => Effect.Effect<ReadonlyArray<ApiKey>, PersistenceError>
    readonly revokeKey: (keyId: string, at: string) => Effect.Effect<boolean, PersistenceError>
    readonly saveLocation: (location: Location) => Effect.Effect<void, PersistenceError>
    readonly listLocations: (companyId: CompanyId) => Effect.Effect<ReadonlyArray<Location>, PersistenceError>
    readonly assignLocation: (assignment: LocationAssignment) => Effect.Effect<void, PersistenceError>
    /** Ends the connection's access to the location; false when it had none. */
    readonly unassignLocation: (
      connectionId: ConnectionId,
      locationId: string
    ) => Effect.Effect<boolean, PersistenceError>
    readonly assignments: (
      connectionId: ConnectionId
    ) => Effect.Effect<ReadonlyArray<LocationAssignment>, PersistenceError>
  }
>()("@catalog-sync/core/Accounts") {}

/** A unique account value (storage_slug, custom domain) is already in use. */
export class AccountConflict extends Schema.TaggedError<AccountConflict>()("AccountConflict", {
  message: Schema.String,
  field: Schema.String
}) {
  get code(): "account_conflict" {
    return "account_conflict"
  }
}

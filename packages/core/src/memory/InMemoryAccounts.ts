import { Effect, Layer, Option } from "effect"
import { AccountConflict, Accounts, type Location, type LocationAssignment } from "../Auth/Accounts.js"
import type { ApiKey } from "../Auth/ApiKey.js"
import type { Company, Connection } from "../Auth/Company.js"
import type { CompanyId } from "../Shared/Ids.js"

/** Account data in memory. */
export const accountsLayer = Layer.sync(Accounts, () => {
  const companies = new Map<string, Company>()
  const connections = new Map<string, Connection>()
  const keys = new Map<string, { key: ApiKey; secretHash: string }>()
  const locations = new Map<string, Location>()
  const assignments = new Map<string, LocationAssignment>()
  return Accounts.of({
    findKey: (keyId, domain) =>
      Effect.sync(() => {
        const found = keys.get(keyId)
        const connection = found && connections.get(found.key.connection_id)
        const company = found && companies.get(found.key.company_id)
        if (!(found && connection && company)) return Option.none()
        const domainOwner =
          domain === undefined
            ? Option.none<CompanyId>()
            : Option.fromNullishOr(Array.from(companies.values()).find((c) => c.domains.includes(domain))?.id)
        return Option.some({ ...found, connection, company, domainOwner })
      }),
    companyOfDomain: (domain) =>
      Effect.sync(() =>
        Option.fromNullishOr(Array.from(companies.values()).find((c) => c.domains.includes(domain))?.id)
      ),
    getCompany: (id) => Effect.sync(() => Option.fromNullishOr(companies.get(id))),
    listCompanies: Effect.sync(() => Array.from(companies.values())),
    saveCompany: (company) =>
      Effect.suspend(() => {
        for (const other of companies.values()) {
          if (other.id === company.id) continue
          if (other.storage_slug === company.storage_slug) {
            return Effect.fail(
              new AccountConflict({ field: "storage_slug", message: `storage_slug ${company.storage_slug} is taken` })
            )
          }
          const shared = other.domains.find((d) => company.domains.includes(d))
          if (shared !== undefined)
            return Effect.fail(
              new AccountConflict({ field: "domains", message: `domain ${shared} belongs to another company` })
            )
        }
        companies.set(company.id, company)
        return Effect.void
      }),
    getConnection: (id) => Effect.sync(() => Option.fromNullishOr(connections.get(id))),
    listConnections: (companyId) =>
      Effect.sync(() => Array.from(connections.values()).filter((c) => c.company_id === companyId)),
    saveConnection: (connection) => Effect.sync(() => void connections.set(connection.id, connection)),
    insertKey: (key, secretHash) => Effect.sync(() => void keys.set(key.id, { key, secretHash })),
    listKeys: (companyId) =>
      Effect.sync(() => Array.from(keys.values(), (k) => k.key).filter((k) => k.company_id === companyId)),
    revokeKey: (keyId, at) =>
      Effect.sync(() => {
        const found = keys.get(keyId)
        if (found === undefined) return false
        if (found.key.revoked_at === null) keys.set(keyId, { ...found, key: { ...found.key, revoked_at: at } })
        return true
      }),
    saveLocation: (location) => Effect.sync(() => void locations.set(location.id, location)),
    listLocations: (companyId) =>
      Effect.sync(() => Array.from(locations.values()).filter((l) => l.company_id === companyId)),
    assignLocation: (assignment) =>
      Effect.sync(() => void assignments.set(`${assignment.connection_id}|${assignment.location_id}`, assignment)),
    unassignLocation: (connectionId, locationId) =>
      Effect.sync(() => assignments.delete(`${connectionId}|${locationId}`)),
    assignments: (connectionId) =>
      Effect.sync(() => Array.from(assignments.values()).filter((a) => a.connection_id === connectionId))
  })
})

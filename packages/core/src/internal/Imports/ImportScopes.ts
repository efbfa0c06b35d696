import { Effect, Result } from "effect"
import { CurrentPrincipal, type Principal } from "../../Auth/Principal.js"
import { type BodyParts, bodyParts, missingScopes, requiredWriteScopes, sentWriteScopes } from "../Catalog/Access.js"
import { decodeUpsert } from "../../Catalog/Decode.js"
import { UpsertMode } from "../../Resources/CommonFields.js"
import { definitions } from "../../Resources/Registry.js"
import type { ResourceName } from "../../Resources/Resource.js"
import { ScopeDenied } from "../../Shared/Errors.js"
import type { Scope } from "../../Shared/Scope.js"
import { maxRecords } from "../../Imports/Import.js"
import type { PlannedRecord } from "./ImportRunner.js"
import type { JsonObject } from "../json.js"

/** The write scopes an import's records need: checked before it is decoded, when it is submitted and retried. */

/** A record's mode as sent (catalog when it names none or an unknown one). */
export const modeOf = (body: JsonObject): UpsertMode =>
  UpsertMode.literals.includes(body.mode as UpsertMode) ? (body.mode as UpsertMode) : "catalog"

const noParts: BodyParts = { catalogKeys: [], priceKeys: [], costKeys: [], coefficient: false }

/**
 * The write scopes the records need whatever they turn out to be (creates in combined mode need
 * catalog:write as well, which their own upsert checks). A body is checked against its upsert schema
 * before anything reads it; one that fails it (and will fail as a record) still asks for the scopes of
 * its mode.
 */
export const scopesFor = (records: ReadonlyArray<PlannedRecord>): ReadonlyArray<Scope> => {
  const needed = new Set<Scope>()
  for (const record of records) {
    const definition = definitions[record.resource]
    const decoded = decodeUpsert(record.resource, record.body)
    const parts = Result.isFailure(decoded) ? noParts : bodyParts(definition, decoded.success)
    for (const scope of requiredWriteScopes(modeOf(record.body), parts, false)) needed.add(scope)
  }
  return Array.from(needed)
}

/**
 * Whether `held` covers whatever `scopesFor` could ask of these records, read without decoding them: a
 * record asks for the scopes of its parts when its body decodes (a decoded body has the keys it was sent
 * with: the upsert schemas are exact structs, no defaults, no renames) and of its mode alone when it does
 * not, so holding both for its sent keys is enough. It spares a submission the strict decode of every
 * body (the job decodes each one when it applies it); a key short of them gets the exact answer.
 */
export const holdsAnyScopesFor = (records: ReadonlyArray<PlannedRecord>, held: ReadonlySet<Scope>): boolean =>
  records.every((record) => {
    const mode = modeOf(record.body)
    const sent = bodyParts(definitions[record.resource], record.body)
    return (
      missingScopes(requiredWriteScopes(mode, sent, false), held).length === 0 &&
      missingScopes(requiredWriteScopes(mode, noParts, false), held).length === 0
    )
  })

/** The write scopes of which every import needs one. */
const importWriteScopes: ReadonlyArray<Scope> = ["catalog:write", "prices:write", "costs:write"]

/** The scopes the records of an import body need, read as sent (of its first `maxRecords` records). */
const sentScopesFor = (sent: unknown): ReadonlyArray<Scope> => {
  const records = typeof sent === "object" && sent !== null && "records" in sent ? sent.records : undefined
  const needed = new Set<Scope>()
  for (const record of Array.isArray(records) ? records.slice(0, maxRecords) : []) {
    const resource: unknown = typeof record === "object" && record !== null ? record.resource : undefined
    if (typeof resource === "string" && Object.hasOwn(definitions, resource)) {
      for (const scope of sentWriteScopes(definitions[resource as ResourceName], record.body)) needed.add(scope)
    }
  }
  return Array.from(needed)
}

/**
 * What can be decided of an import's scopes before its body is decoded: a key holding no write scope is
 * refused, naming the scopes its records as sent need (catalog:write when none can be read), so that
 * the body is never decoded. `authorize` decides on the decoded body.
 */
export const preauthorize = (sent: unknown): Effect.Effect<void, ScopeDenied, CurrentPrincipal> =>
  Effect.flatMap(CurrentPrincipal, (principal) => {
    if (importWriteScopes.some((scope) => principal.scopes.has(scope))) return Effect.void
    const sentScopes = sentScopesFor(sent)
    const required = sentScopes.length > 0 ? sentScopes : (["catalog:write"] as const)
    return Effect.fail(
      new ScopeDenied({ message: `the records of this import need the scopes ${required.join(", ")}`, required })
    )
  })

/** Fails with ScopeDenied naming the scopes of the records that the principal does not hold. */
export const requireScopes = (principal: Principal, records: ReadonlyArray<PlannedRecord>) => {
  const missing = holdsAnyScopesFor(records, principal.scopes)
    ? []
    : missingScopes(scopesFor(records), principal.scopes)
  return missing.length === 0
    ? Effect.void
    : Effect.fail(
        new ScopeDenied({
          message: `the records of this import need the scopes ${missing.join(", ")}`,
          required: missing
        })
      )
}

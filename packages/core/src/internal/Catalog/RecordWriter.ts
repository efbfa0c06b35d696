import { Effect, Option } from "effect"
import type { Principal } from "../../Auth/Principal.js"
import { jsonEqual } from "../json.js"
import { setCoefficients, type StoredField } from "../Product/SelectionField.js"
import type { Document, ResourceDefinition, RuleContext, Violation } from "../Resources/ResourceDefinition.js"
import { MappingConflict, RecordArchived, RecordNotFound, RevisionConflict } from "../../Shared/Errors.js"
import type { Ids, RecordId } from "../../Shared/Ids.js"
import { nowIso } from "../Shared/Now.js"
import { describe, type Reference } from "../../Shared/Reference.js"
import { bodyParts, requiredWriteScopes } from "./Access.js"
import { mappingScope, requireScopes } from "./Caller.js"
import type { MappingScope } from "../../Catalog/Mappings.js"
import { changedParts, mergeDocument, missingRequired, violation } from "./Document.js"
import { findReferences, type FoundReference, jsonPath, replaceReferences } from "./ReferenceSlots.js"
import type { StoredRecord } from "../../Catalog/StoredRecord.js"
import type { DocumentOf } from "../Resources/Documents.js"
import type { ResourceName } from "../../Resources/Resource.js"
import type { WritePorts } from "./WriteBehind.js"
import type { WriteHeader } from "./WriteHeader.js"

/** Mapping lookups a write made ahead (`lookAhead`): by target, the external ids asked and those found. */
interface Known {
  readonly asked: ReadonlyMap<string, ReadonlySet<string>>
  readonly found: ReadonlyMap<string, ReadonlyMap<string, RecordId>>
}

/**
 * Records of `resource` as its rules read them: each holds a document its definition wrote (the store keeps
 * a record's resource beside its document and answers a read of one resource with records of that resource).
 */
const documentsOf =
  <Name extends ResourceName>(_resource: Name) =>
  (records: ReadonlyArray<StoredRecord>) =>
    records as ReadonlyArray<StoredRecord<DocumentOf<Name>>>

/** Whether every id was asked ahead in `target`'s scope: then what was found is the whole answer. */
const answered = (known: Known | undefined, target: string, externalIds: ReadonlyArray<string>) => {
  const asked = known?.asked.get(target)
  return asked !== undefined && externalIds.every((id) => asked.has(id))
}

/**
 * The write steps over a set of ports: the services' own, or an import batch's write-behind over
 * them (`WriteBehind`), so that one upsert is written the same way either way.
 */
export const makeWriter = <E>({ repository, mappings, changeLog }: WritePorts<E>, ids: Ids["Service"]) => {
  /**
   * The write's own external id and the external references of the body as sent, looked up together
   * (`findAcross`: one round trip where the port can) when the body references something by external id;
   * undefined otherwise, and each lookup is made where it is needed.
   */
  const lookAhead = (principal: Principal, definition: ResourceDefinition, externalId: string, sent: Document) =>
    Effect.gen(function* () {
      const asked = new Map<string, Set<string>>([[definition.name, new Set([externalId])]])
      let references = 0
      for (const { reference, target } of findReferences(sent, definition.references)) {
        // A uuid names a record (read by id); only an external id is a mapping to look up.
        if (typeof reference === "string" || typeof reference?.external_id !== "string") continue
        references++
        const ids = asked.get(target) ?? new Set<string>()
        asked.set(target, ids.add(reference.external_id))
      }
      if (references === 0) return undefined
      const lookups = Array.from(asked, ([target, externalIds]) => ({
        scope: mappingScope(principal, target as MappingScope["resource"]),
        externalIds: Array.from(externalIds)
      }))
      const results = yield* mappings.findAcross(lookups)
      const found = new Map(lookups.map((lookup, i) => [lookup.scope.resource as string, results[i]!]))
      return { asked, found } satisfies Known
    })

  /** Resolves every Reference, in one round trip per target and form; unresolved ones are listed. */
  const resolveReferences = (principal: Principal, found: ReadonlyArray<FoundReference>, known: Known | undefined) =>
    Effect.gen(function* () {
      const resolved: Array<string | undefined> = new Array(found.length)
      const targets = new Set(found.map((ref) => ref.target))
      for (const target of targets) {
        const indices = found.flatMap((ref, i) => (ref.target === target ? [i] : []))
        const uuids = indices.flatMap((i): ReadonlyArray<RecordId> => {
          const ref = found[i]!.reference
          // Decoded by the body's schema as a uuid, it names a record (or none: then it is unresolved).
          return typeof ref === "string" ? [ref as RecordId] : []
        })
        const externals = indices.flatMap((i) => {
          const ref = found[i]!.reference
          return typeof ref === "string" ? [] : [ref.external_id]
        })
        const existing: ReadonlySet<string> =
          uuids.length > 0 ? yield* repository.existing(principal.company.id, target, uuids) : new Set()
        let mapped =
          externals.length === 0
            ? new Map<string, RecordId>()
            : answered(known, target, externals)
              ? known!.found.get(target)!
              : yield* mappings.findMany(mappingScope(principal, target), externals)
        if (target === "media" && mapped.size > 0) {
          // A media mapping exists from the upload on; only completed media can be linked.
          const usable = yield* repository.existing(principal.company.id, "media", Array.from(mapped.values()))
          mapped = new Map(Array.from(mapped).filter(([, id]) => usable.has(id)))
        }
        for (const i of indices) {
          const ref: Reference = found[i]!.reference
          resolved[i] = typeof ref === "string" ? (existing.has(ref) ? ref : undefined) : mapped.get(ref.external_id)
        }
      }
      const ids: Array<string> = []
      const unresolved: Array<Violation> = []
      for (const [i, ref] of found.entries()) {
        const id = resolved[i]
        if (id !== undefined) ids.push(id)
        else
          unresolved.push({
            reason: "unresolved_reference",
            issue: {
              path: jsonPath(ref.location),
              message: `no ${ref.target} record ${describe(ref.reference)} in this ${typeof ref.reference === "string" ? "company" : "connection"}`
            }
          })
      }
      yield* violation(unresolved)
      // Every reference resolved: one id each, in their order.
      return ids
    })

  /** Finds the record a body addresses: by its mapping, else by target_id (binding a new mapping). */
  const locate = (
    principal: Principal,
    definition: ResourceDefinition,
    header: WriteHeader,
    known: Known | undefined
  ) =>
    Effect.gen(function* () {
      const scope = mappingScope(principal, definition.name)
      const { externalId, targetId } = header
      const mapped = answered(known, definition.name, [externalId])
        ? Option.fromNullishOr(known!.found.get(definition.name)!.get(externalId))
        : yield* mappings.find(scope, externalId)
      if (Option.isSome(mapped)) {
        if (targetId !== undefined && targetId !== mapped.value) {
          return yield* new MappingConflict({
            reason: "mapping_cannot_move",
            message: `external_id ${JSON.stringify(externalId)} is mapped to ${mapped.value}; an established mapping cannot move to ${targetId}`
          })
        }
        const stored = yield* repository.get(principal.company.id, definition.name, mapped.value)
        if (Option.isNone(stored)) {
          return yield* Effect.die(new Error(`mapping ${externalId} points at a missing ${definition.label}`))
        }
        return { stored: stored.value, bind: false }
      }
      // Prices mode changes existing mapped records only: it never makes a mapping.
      if (targetId === undefined || header.mode === "prices") return { stored: undefined, bind: false }
      const stored = yield* repository.get(principal.company.id, definition.name, targetId)
      if (Option.isNone(stored)) {
        return yield* new RecordNotFound({
          resource: definition.name,
          message: `no ${definition.label} ${targetId} in this company (target_id)`
        })
      }
      const already = yield* mappings.externalIdsOf(scope, [targetId])
      const other = already.get(targetId)
      if (other !== undefined) {
        return yield* new MappingConflict({
          reason: "record_already_mapped",
          message: `${definition.label} ${targetId} is already mapped by this connection as external_id ${JSON.stringify(other)}`
        })
      }
      return { stored: stored.value, bind: true }
    })

  /** Writes `sent` (the body its mode applies) to the record `header` addresses. */
  const write = (principal: Principal, definition: ResourceDefinition, header: WriteHeader, sent: Document) =>
    Effect.gen(function* () {
      let body = sent
      const { externalId, mode } = header
      const parts = bodyParts(definition, body)
      const known = yield* lookAhead(principal, definition, externalId, sent)
      const { stored, bind } = yield* locate(principal, definition, header, known)
      const expected = header.expectedRevision
      if (stored === undefined) {
        if (mode === "prices") {
          return yield* new RecordNotFound({
            resource: definition.name,
            message: `prices mode changes existing mapped records only; no ${definition.label} is mapped to external_id ${JSON.stringify(externalId)}`
          })
        }
        yield* requireScopes(principal, requiredWriteScopes(mode, parts, true))
        if (expected !== undefined && expected !== 0) {
          return yield* new RevisionConflict({
            message: `no ${definition.label} is mapped to external_id ${JSON.stringify(externalId)}; use expected_revision 0 to create it`,
            current_revision: 0,
            expected_revision: expected
          })
        }
      } else {
        if (stored.archivedAt !== null) {
          return yield* new RecordArchived({
            message: `${definition.label} ${stored.id} is archived and cannot be changed`
          })
        }
        if (expected !== stored.revision) {
          return yield* new RevisionConflict({
            message:
              expected === undefined
                ? `updating ${definition.label} ${stored.id} needs expected_revision (current ${stored.revision})`
                : `${definition.label} ${stored.id} is at revision ${stored.revision}, not ${expected}`,
            current_revision: stored.revision,
            expected_revision: expected ?? null
          })
        }
      }
      if (mode === "prices" && Array.isArray(body.fields) && stored !== undefined) {
        // Prices mode names stored fields to set their coefficients: the list itself stays as stored.
        const updated = setCoefficients((stored.data.fields ?? []) as ReadonlyArray<StoredField>, body.fields)
        yield* violation(updated.violations)
        body = { ...body, fields: updated.fields }
      }
      yield* violation(definition.checkBody(body, stored?.data))
      const found = findReferences(body, definition.references)
      const resolvedIds = yield* resolveReferences(principal, found, known)
      const resolvedBody = replaceReferences(body, found, resolvedIds)

      const recordId = (stored?.id ?? (yield* ids.next)) as RecordId
      const fresh = yield* Effect.all(
        Array.from({ length: Array.isArray(body.fields) ? body.fields.length : 0 }, () => ids.next)
      )
      const document = definition.normalize(
        mergeDocument(definition, stored?.data ?? definition.defaults, resolvedBody, () => fresh.shift()!)
      )
      const isCreate = stored === undefined
      yield* violation(isCreate ? missingRequired(definition, document) : [])
      const context: RuleContext<Document, E> = {
        isCreate,
        recordId,
        stored: stored?.data,
        company: principal.company,
        getMany: (resource, recordIds) =>
          Effect.map(repository.getMany(principal.company.id, resource, recordIds), documentsOf(resource)),
        ancestors: (categoryId) => repository.ancestors(principal.company.id, categoryId, 101),
        children: (resource, parentIds) =>
          Effect.map(repository.children(principal.company.id, resource, parentIds), documentsOf(resource)),
        bundlesContaining: (productId) => repository.bundlesContaining(principal.company.id, productId),
        lockPricing: repository.lockPricing(principal.company.id)
      }
      yield* violation(yield* definition.validate(document, context))

      const mapping = { ...mappingScope(principal, definition.name), externalId, recordId }
      const at = yield* nowIso
      if (bind) yield* mappings.insert({ ...mapping, createdAt: at })
      if (stored !== undefined && jsonEqual(document, stored.data)) {
        return { outcome: "unchanged" as const, record: stored }
      }
      let record: StoredRecord
      let operation: "created" | "updated"
      if (stored === undefined) {
        record = {
          id: recordId,
          companyId: principal.company.id,
          resource: definition.name,
          revision: 1,
          data: document,
          index: definition.index(document),
          createdAt: at,
          updatedAt: at,
          archivedAt: null
        }
        operation = "created"
        yield* mappings.insert({ ...mapping, createdAt: at })
        yield* repository.insert(record)
      } else {
        record = {
          ...stored,
          revision: stored.revision + 1,
          data: document,
          index: definition.index(document),
          updatedAt: at
        }
        operation = "updated"
        yield* repository.update(record, stored.revision, stored.index)
      }
      yield* changeLog.append({
        companyId: principal.company.id,
        resource: definition.name,
        recordId,
        revision: record.revision,
        operation,
        originConnectionId: principal.connectionId,
        at,
        parts: changedParts(definition, stored?.data, document)
      })
      return { outcome: operation, record }
    })

  /** A create that lost a race for its external_id is a revision conflict with the winner's record. */
  const raceLost = (principal: Principal, definition: ResourceDefinition, externalId: string) =>
    Effect.gen(function* () {
      const winner = yield* mappings.find(mappingScope(principal, definition.name), externalId)
      const record = Option.isSome(winner)
        ? yield* repository.get(principal.company.id, definition.name, winner.value)
        : Option.none()
      return yield* new RevisionConflict({
        message: `another request created ${definition.label} external_id ${JSON.stringify(externalId)} first; read it and retry`,
        current_revision: Option.match(record, { onNone: () => 1, onSome: (r) => r.revision }),
        expected_revision: 0
      })
    })

  return { write, raceLost }
}

/** The write steps of one upsert, over ports that may also fail with `E`. */
export type Writer<E> = ReturnType<typeof makeWriter<E>>

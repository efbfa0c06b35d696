import { Clock, Effect, Option } from "effect"
import { CurrentPrincipal, type Principal } from "../Auth/Principal.js"
import * as ChangeCursor from "../Changes/ChangeCursor.js"
import { ChangeLog, type ChangeOperation, type ChangePart } from "../Changes/ChangeLog.js"
import { jsonEqual } from "../internal/json.js"
import { setCoefficients, type StoredField } from "../Product/SelectionField.js"
import { Ids, type RecordId } from "../Shared/Ids.js"
import { describe, type Reference } from "../Shared/Reference.js"
import type { Scope } from "../Shared/Scope.js"
import { merge as mergeTranslations, type Translations } from "../Shared/Translations.js"
import { Transactor } from "../Shared/Transactor.js"
import { command, runDirect } from "../Writes/WriteCommand.js"
import {
  bodyParts,
  missingScopes,
  modeViolations,
  pricesModeBody,
  type ReadMode,
  requiredWriteScopes,
  sentWriteScopes,
  upsertWriteScopes
} from "./Access.js"
import {
  MappingConflict,
  RecordArchived,
  RecordInUse,
  RecordNotFound,
  RevisionConflict,
  RuleViolation,
  ScopeDenied
} from "../Shared/Errors.js"
import { CatalogRepository, type ListQuery } from "./CatalogRepository.js"
import type { UpsertMode } from "../Resources/CommonFields.js"
import { Mappings, type MappingScope } from "./Mappings.js"
import { type RecordView, recordView } from "./RecordView.js"
import { findReferences, type FoundReference, jsonPath, replaceReferences } from "./ReferenceSlots.js"
import type { ResourceName } from "../Resources/Resource.js"
import type { Document, ResourceDefinition, RuleContext, Violation } from "../Resources/ResourceDefinition.js"
import { definitions } from "../Resources/Registry.js"
import type { StoredRecord } from "./StoredRecord.js"
import * as WriteBehind from "./WriteBehind.js"
import type { WritePorts } from "./WriteBehind.js"

export type Outcome = "created" | "updated" | "unchanged"

export interface WriteResult<Name extends ResourceName = ResourceName> {
  readonly outcome: Outcome
  readonly record: RecordView<Name>
  /** Prices mode: the catalog fields the body carried, which were preserved rather than applied (JSON paths). */
  readonly ignored_fields?: ReadonlyArray<string>
}

export interface Page<Name extends ResourceName = ResourceName, Mode extends ReadMode = ReadMode> {
  /** On the first page only: where to start the change feed so that nothing after this list is missed. */
  readonly change_cursor?: string
  readonly records: ReadonlyArray<RecordView<Name, Mode>>
  readonly next_cursor: string | null
  readonly has_more: boolean
}

export interface ListParams<Mode extends ReadMode = ReadMode> extends Omit<
  ListQuery,
  "externalId" | "includeArchived"
> {
  readonly externalId?: string | undefined
  /** catalog when omitted. */
  readonly mode?: Mode | undefined
}

/** A write answers with what the caller may read: the full record with catalog:read, else the price view. */
const writeView = (principal: Principal): ReadMode => (principal.scopes.has("catalog:read") ? "catalog" : "prices")

const requireScopes = (principal: Principal, required: ReadonlyArray<Scope>) => {
  const missing = missingScopes(required, principal.scopes)
  return missing.length === 0
    ? Effect.void
    : Effect.fail(
        new ScopeDenied({ message: `this operation needs the scopes ${missing.join(", ")}`, required: missing })
      )
}

const violation = (violations: ReadonlyArray<Violation>) => {
  const first = violations[0]
  if (first === undefined) return Effect.void
  const issues = violations.filter((v) => v.reason === first.reason).map((v) => v.issue)
  // The message names the first few; the issues list them all (an answer shows the first 20).
  const named = issues.slice(0, 5).map((i) => `${i.path}: ${i.message}`)
  return Effect.fail(
    new RuleViolation({
      reason: first.reason,
      message:
        issues.length > named.length
          ? `${named.join("; ")}; and ${issues.length - named.length} more`
          : named.join("; "),
      issues
    })
  )
}

/** Languages a body may translate into: enabled ones other than the main language. */
const translationViolations = (
  definition: ResourceDefinition,
  body: Document,
  principal: Principal
): ReadonlyArray<Violation> => {
  const { languages, main_language } = principal.company
  const check = (translations: unknown, path: string, allowed: ReadonlyArray<string>): ReadonlyArray<Violation> =>
    Object.entries((translations ?? {}) as Translations).flatMap(([language, entry]): ReadonlyArray<Violation> => {
      const at = `${path}.${language}`
      if (language === main_language) {
        return [
          {
            reason: "language_not_enabled",
            issue: { path: at, message: `${language} is the main language: send it in name/description` }
          }
        ]
      }
      if (!languages.includes(language)) {
        return [
          {
            reason: "language_not_enabled",
            issue: { path: at, message: `${language} is not an enabled language of the company` }
          }
        ]
      }
      return Object.keys(entry)
        .filter((key) => !allowed.includes(key))
        .map((key) => ({
          reason: "translation_not_allowed" as const,
          issue: { path: `${at}.${key}`, message: `the ${definition.label} ${key} is shared across languages` }
        }))
    })
  const fields = Array.isArray(body.fields) ? (body.fields as ReadonlyArray<Document>) : []
  return [
    ...check(body.translations, "$.translations", definition.translatable),
    ...fields.flatMap((field, i) => check(field.translations, `$.fields[${i}].translations`, ["name", "description"]))
  ]
}

const mergeDocument = (
  definition: ResourceDefinition,
  base: Document,
  body: Document,
  nextId: () => string
): Document => {
  const out: Record<string, unknown> = { ...base }
  for (const [key, value] of Object.entries(body)) {
    if (
      key === "external_id" ||
      key === "target_id" ||
      key === "expected_revision" ||
      key === "mode" ||
      key === "currency"
    )
      continue
    if (key === "translations") {
      out.translations = mergeTranslations(base.translations as Translations, value as Translations)
      continue
    }
    const merger = definition.mergers[key]
    out[key] = merger === undefined ? value : merger(base[key], value, { nextId })
  }
  return out
}

/** What a write touched, so that the feed shows it to readers of catalog, prices or costs. */
const changedParts = (
  definition: ResourceDefinition,
  before: Document | undefined,
  after: Document
): ReadonlyArray<ChangePart> => {
  const parts = new Set<ChangePart>()
  if (before === undefined) {
    // A new record also appears in the price lists of resources that have prices.
    parts.add("catalog")
    if (definition.priceKeys.length > 0) parts.add("prices")
    if (definition.costKeys.length > 0) parts.add("costs")
  }
  const base = before ?? definition.defaults
  const compare = (key: string) => !jsonEqual(base[key], after[key])
  for (const key of new Set([...Object.keys(base), ...Object.keys(after)])) {
    // A key whose parts are counted already needs no comparison (the set is all that is kept).
    if (key === "fields") {
      if (parts.has("prices") && parts.has("catalog")) continue
      if (!compare(key)) continue
      // Coefficients are prices (spec 5.9); the rest of a field is catalog data.
      const coefficients = (doc: unknown) => ((doc ?? []) as ReadonlyArray<Document>).map((f) => [f.id, f.coefficient])
      const withoutCoefficients = (doc: unknown) =>
        ((doc ?? []) as ReadonlyArray<Document>).map(({ coefficient: _, ...f }) => f)
      if (!jsonEqual(coefficients(base[key]), coefficients(after[key]))) parts.add("prices")
      if (!jsonEqual(withoutCoefficients(base[key]), withoutCoefficients(after[key]))) parts.add("catalog")
      continue
    }
    const part: ChangePart = definition.priceKeys.includes(key)
      ? "prices"
      : definition.costKeys.includes(key)
        ? "costs"
        : "catalog"
    if (!parts.has(part) && compare(key)) parts.add(part)
  }
  return Array.from(parts)
}

const missingRequired = (definition: ResourceDefinition, document: Document): ReadonlyArray<Violation> =>
  definition.requiredOnCreate
    .filter((key) => {
      const value = document[key]
      return value === null || value === undefined || (Array.isArray(value) && value.length === 0)
    })
    .map((key) => ({
      reason: "missing_required_field" as const,
      issue: { path: `$.${key}`, message: `${key} is required to create a ${definition.label}` }
    }))

/**
 * The catalog use cases: upsert, get, list and archive, written once for every resource over the
 * resource definitions. Every method acts for the CurrentPrincipal and stays inside its company.
 */
export class CatalogService extends Effect.Service<CatalogService>()("@catalog-sync/core/CatalogService", {
  effect: Effect.gen(function* () {
    const repository = yield* CatalogRepository
    const mappings = yield* Mappings
    const transactor = yield* Transactor
    const changeLog = yield* ChangeLog
    const ids = yield* Ids

    const now = Clock.currentTimeMillis.pipe(Effect.map((millis) => new Date(millis).toISOString()))

    const mappingScope = (principal: Principal, resource: MappingScope["resource"]): MappingScope => ({
      companyId: principal.company.id,
      connectionId: principal.connectionId,
      resource
    })

    /**
     * The write steps over a set of ports: the services' own, or an import batch's write-behind over
     * them (`WriteBehind`), so that one upsert is written the same way either way.
     */
    const writerOf = ({ repository, mappings, changeLog }: WritePorts) => {
      /** Resolves every Reference, in one round trip per target and form; unresolved ones are listed. */
      const resolveReferences = (principal: Principal, found: ReadonlyArray<FoundReference>) =>
        Effect.gen(function* () {
          const resolved: Array<string | undefined> = new Array(found.length)
          const targets = new Set(found.map((ref) => ref.target))
          for (const target of targets) {
            const indices = found.flatMap((ref, i) => (ref.target === target ? [i] : []))
            const uuids = indices.flatMap((i) => {
              const ref = found[i]!.reference
              return typeof ref === "string" ? [ref as RecordId] : []
            })
            const externals = indices.flatMap((i) => {
              const ref = found[i]!.reference
              return typeof ref === "string" ? [] : [ref.external_id]
            })
            const existing =
              uuids.length > 0 ? yield* repository.existing(principal.company.id, target, uuids) : new Set<RecordId>()
            let mapped =
              externals.length > 0
                ? yield* mappings.findMany(mappingScope(principal, target), externals)
                : new Map<string, RecordId>()
            if (target === "media" && mapped.size > 0) {
              // A media mapping exists from the upload on; only completed media can be linked.
              const usable = yield* repository.existing(principal.company.id, "media", Array.from(mapped.values()))
              mapped = new Map(Array.from(mapped).filter(([, id]) => usable.has(id)))
            }
            for (const i of indices) {
              const ref: Reference = found[i]!.reference
              resolved[i] =
                typeof ref === "string"
                  ? existing.has(ref as RecordId)
                    ? ref
                    : undefined
                  : mapped.get(ref.external_id)
            }
          }
          const unresolved: Array<Violation> = found.flatMap((ref, i) =>
            resolved[i] === undefined
              ? [
                  {
                    reason: "unresolved_reference" as const,
                    issue: {
                      path: jsonPath(ref.location),
                      message: `no ${ref.target} record ${describe(ref.reference)} in this ${typeof ref.reference === "string" ? "company" : "connection"}`
                    }
                  }
                ]
              : []
          )
          yield* violation(unresolved)
          return resolved as ReadonlyArray<string>
        })

      /** Finds the record a body addresses: by its mapping, else by target_id (binding a new mapping). */
      const locate = (principal: Principal, definition: ResourceDefinition, body: Document) =>
        Effect.gen(function* () {
          const scope = mappingScope(principal, definition.name)
          const externalId = body.external_id as string
          const targetId = body.target_id as RecordId | undefined
          const mapped = yield* mappings.find(scope, externalId)
          if (Option.isSome(mapped)) {
            if (targetId !== undefined && targetId !== mapped.value) {
              return yield* new MappingConflict({
                reason: "mapping_cannot_move",
                message: `external_id ${JSON.stringify(externalId)} is mapped to ${mapped.value}; an established mapping cannot move to ${targetId}`
              })
            }
            const stored = yield* repository.get(principal.company.id, definition.name, mapped.value)
            if (Option.isNone(stored)) {
              return yield* Effect.dieMessage(`mapping ${externalId} points at a missing ${definition.label}`)
            }
            return { stored: stored.value, bind: false }
          }
          // Prices mode changes existing mapped records only: it never makes a mapping.
          if (targetId === undefined || body.mode === "prices") return { stored: undefined, bind: false }
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

      const write = (principal: Principal, definition: ResourceDefinition, sent: Document, mode: UpsertMode) =>
        Effect.gen(function* () {
          let body = sent
          const parts = bodyParts(definition, body)
          const { stored, bind } = yield* locate(principal, definition, body)
          const expected = body.expected_revision as number | undefined
          if (stored === undefined) {
            if (mode === "prices") {
              return yield* new RecordNotFound({
                resource: definition.name,
                message: `prices mode changes existing mapped records only; no ${definition.label} is mapped to external_id ${JSON.stringify(body.external_id)}`
              })
            }
            yield* requireScopes(principal, requiredWriteScopes(mode, parts, true))
            if (expected !== undefined && expected !== 0) {
              return yield* new RevisionConflict({
                message: `no ${definition.label} is mapped to external_id ${JSON.stringify(body.external_id)}; use expected_revision 0 to create it`,
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
          const resolvedIds = yield* resolveReferences(principal, found)
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
          const context: RuleContext = {
            isCreate,
            recordId,
            stored: stored?.data,
            company: principal.company,
            getMany: (resource, recordIds) => repository.getMany(principal.company.id, resource, recordIds),
            ancestors: (categoryId) => repository.ancestors(principal.company.id, categoryId, 101),
            children: (resource, parentIds) => repository.children(principal.company.id, resource, parentIds),
            bundlesContaining: (productId) => repository.bundlesContaining(principal.company.id, productId),
            lockPricing: repository.lockPricing(principal.company.id)
          }
          yield* violation(yield* definition.validate(document, context))

          const scope = mappingScope(principal, definition.name)
          const externalId = body.external_id as string
          const mapping = { ...scope, externalId, recordId }
          const at = yield* now
          if (bind) yield* mappings.insert({ ...mapping, createdAt: at })
          if (stored !== undefined && jsonEqual(document, stored.data)) {
            return { outcome: "unchanged" as const, record: stored }
          }
          let record: StoredRecord
          let operation: ChangeOperation
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
          return { outcome: operation as Outcome, record }
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

    const directWriter = writerOf({ repository, mappings, changeLog })

    /** What an upsert body writes in its mode; prices mode preserves (ignores) the catalog fields sent. */
    const applicable = (definition: ResourceDefinition, body: Document, mode: UpsertMode) =>
      mode === "prices" ? pricesModeBody(definition, body) : { body, ignored: [] as ReadonlyArray<string> }

    /**
     * The checks of an upsert that need no database: fields allowed in the mode and the write scopes
     * they need. Run again inside upsert; callers may run it first (before an idempotent replay).
     */
    const authorizeUpsert = (resource: ResourceName, sent: Document) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        const definition = definitions[resource]
        const mode = (sent.mode ?? "catalog") as UpsertMode
        const parts = bodyParts(definition, applicable(definition, sent, mode).body)
        const notAllowed = modeViolations(mode, parts)
        yield* violation(notAllowed.map((issue): Violation => ({ reason: "field_not_allowed_in_mode", issue })))
        yield* requireScopes(principal, requiredWriteScopes(mode, parts, false))
      })

    /**
     * What can be decided of an upsert's scopes before its body is decoded: a key holding none of the
     * write scopes that could allow an upsert of the resource is refused, naming the scopes the body as
     * sent needs, so that its body is never decoded. `authorizeUpsert` decides on the decoded body.
     */
    const preauthorizeUpsert = (resource: ResourceName, sent: unknown) =>
      Effect.flatMap(CurrentPrincipal, (principal) => {
        const definition = definitions[resource]
        return upsertWriteScopes(definition).some((scope) => principal.scopes.has(scope))
          ? Effect.void
          : requireScopes(principal, sentWriteScopes(definition, sent))
      })

    const authorizeArchive = Effect.flatMap(CurrentPrincipal, (principal) =>
      requireScopes(principal, ["catalog:write"])
    )

    /** The upsert once authorized, written through `writer`: the outcome and the stored record. */
    const applyWrite = (resource: ResourceName, sent: Document, writer: ReturnType<typeof writerOf>) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        const definition = definitions[resource]
        const mode = (sent.mode ?? "catalog") as UpsertMode
        const { body, ignored } = applicable(definition, sent, mode)
        if (body.currency !== undefined && body.currency !== principal.company.currency) {
          yield* violation([
            {
              reason: "currency_mismatch",
              issue: {
                path: "$.currency",
                message: `the company currency is ${principal.company.currency}, not ${String(body.currency)}`
              }
            }
          ])
        }
        yield* violation(translationViolations(definition, body, principal))
        // A failure before the mapping is written (a lost race) leaves nothing to undo, so it may be caught.
        const result = yield* transactor.atomically(writer.write(principal, definition, body, mode)).pipe(
          Effect.catchIf(
            (error): error is MappingConflict =>
              error._tag === "MappingConflict" && error.reason === "external_id_taken",
            () => writer.raceLost(principal, definition, body.external_id as string)
          )
        )
        return { ...result, externalId: body.external_id as string, ignored }
      })

    /** The upsert once authorized. */
    const applyUpsert = <Name extends ResourceName>(resource: Name, sent: Document) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        const result = yield* applyWrite(resource, sent, directWriter)
        return {
          outcome: result.outcome,
          record: recordView(resource, result.record, result.externalId, principal, writeView(principal)),
          ...(result.ignored.length > 0 ? { ignored_fields: result.ignored } : {})
        } satisfies WriteResult<Name>
      })

    /**
     * Upserts of many records in the caller's transaction (an import batch), through a write-behind over
     * the ports (`WriteBehind`): `prefetch` the mappings the bodies name, `upsert` each (authorized as one
     * upsert is; answers the outcome and the record's id, an import shows no record), then `flush`. A
     * record that fails before writing anything leaves nothing behind; `writes` tells the caller whether
     * one did (then only a rollback undoes it).
     */
    const batchWriter = Effect.map(CurrentPrincipal, (principal) => {
      const behind = WriteBehind.make(
        { repository, mappings, changeLog },
        { companyId: principal.company.id, connectionId: principal.connectionId }
      )
      const writer = writerOf(behind.ports)
      return {
        prefetch: (records: ReadonlyArray<{ readonly resource: ResourceName; readonly body: Document }>) =>
          behind.prefetch(
            records.flatMap(({ body, resource }) => [
              ...(typeof body.external_id === "string" ? [{ resource, externalId: body.external_id }] : []),
              ...findReferences(body, definitions[resource].references).flatMap(({ reference, target }) =>
                typeof reference === "string" ? [] : [{ resource: target, externalId: reference.external_id }]
              )
            ])
          ),
        upsert: (resource: ResourceName, body: Document) =>
          Effect.zipRight(
            authorizeUpsert(resource, body),
            Effect.map(applyWrite(resource, body, writer), (result) => ({
              outcome: result.outcome,
              recordId: result.record.id as RecordId
            }))
          ),
        flush: behind.flush,
        writes: behind.writes
      }
    })

    const readScope = (mode: ReadMode): Scope => (mode === "prices" ? "prices:read" : "catalog:read")

    /** One record by id; archived products are returned with state archived. */
    const get = <Name extends ResourceName>(resource: Name, id: RecordId) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        const definition = definitions[resource]
        yield* requireScopes(principal, ["catalog:read"])
        const stored = yield* repository.getMapped(principal.company.id, resource, id, principal.connectionId)
        if (Option.isNone(stored)) {
          return yield* new RecordNotFound({ resource, message: `no ${definition.label} ${id} in this company` })
        }
        return recordView(resource, stored.value.record, stored.value.externalId, principal, "catalog")
      })

    /** A cursor page in id order; archived products are left out. */
    const list = <Name extends ResourceName, Mode extends ReadMode = "catalog">(
      resource: Name,
      params: ListParams<Mode>
    ) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        const mode = params.mode ?? ("catalog" as const)
        yield* requireScopes(principal, [readScope(mode)])
        // Taken before the list is read, so a change racing with the read is in the feed after it.
        const changeCursor =
          params.cursor === undefined ? ChangeCursor.encode(yield* changeLog.head(principal.company.id)) : undefined
        const rows = yield* repository.listMapped(
          principal.company.id,
          resource,
          {
            limit: params.limit + 1,
            cursor: params.cursor,
            externalId:
              params.externalId === undefined
                ? undefined
                : { connectionId: principal.connectionId, value: params.externalId },
            categoryId: params.categoryId,
            collectionId: params.collectionId,
            brandId: params.brandId,
            active: params.active
          },
          principal.connectionId
        )
        const page = rows.slice(0, params.limit)
        const hasMore = rows.length > params.limit
        return {
          ...(changeCursor === undefined ? {} : { change_cursor: changeCursor }),
          records: page.map((r) => recordView(resource, r.record, r.externalId, principal, mode)),
          next_cursor: hasMore ? page[page.length - 1]!.record.id : null,
          has_more: hasMore
        } satisfies Page<Name, Mode | "catalog">
      })

    /** The archive once authorized. */
    const applyArchive = (id: RecordId, expectedRevision: number) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        const definition = definitions.products
        const result = yield* transactor.atomically(
          Effect.gen(function* () {
            const stored = yield* repository.get(principal.company.id, "products", id)
            if (Option.isNone(stored)) {
              return yield* new RecordNotFound({ resource: "products", message: `no product ${id} in this company` })
            }
            const current = stored.value
            if (current.revision !== expectedRevision) {
              return yield* new RevisionConflict({
                message: `product ${id} is at revision ${current.revision}, not ${expectedRevision}`,
                current_revision: current.revision,
                expected_revision: expectedRevision
              })
            }
            if (current.archivedAt !== null) return { outcome: "unchanged" as const, record: current }
            const bundles = yield* repository.bundlesContaining(principal.company.id, id)
            if (bundles.length > 0) {
              return yield* new RecordInUse({
                message: `product ${id} is a component of ${bundles.length === 1 ? "bundle" : "bundles"} ${bundles.slice(0, 10).join(", ")}${bundles.length > 10 ? ", ..." : ""}; remove it from ${bundles.length === 1 ? "that bundle" : "those bundles"} (or archive ${bundles.length === 1 ? "it" : "them"}) first`,
                bundle_ids: bundles.slice(0, 100)
              })
            }
            const at = yield* now
            const data = { ...current.data, active: false }
            const record: StoredRecord = {
              ...current,
              revision: current.revision + 1,
              data,
              index: definition.index(data),
              updatedAt: at,
              archivedAt: at
            }
            yield* repository.update(record, current.revision, current.index)
            yield* changeLog.append({
              companyId: principal.company.id,
              resource: "products",
              recordId: id,
              revision: record.revision,
              operation: "archived",
              originConnectionId: principal.connectionId,
              at,
              // The record leaves the catalog and the price lists alike.
              parts: ["catalog", "prices", "costs"]
            })
            return { outcome: "updated" as const, record }
          })
        )
        const external = yield* mappings.externalIdsOf(mappingScope(principal, "products"), [id])
        return {
          outcome: result.outcome,
          record: recordView("products", result.record, external.get(id) ?? null, principal, writeView(principal))
        } satisfies WriteResult<"products">
      })

    /** POST /{resource}/upsert as a write command (see `WriteRunner`). */
    const upsertCommand = <Name extends ResourceName>(resource: Name, body: Document) =>
      command({ authorize: authorizeUpsert(resource, body), run: applyUpsert(resource, body) })

    /** DELETE /products/{id} as a write command. */
    const archiveCommand = (id: RecordId, expectedRevision: number) =>
      command({ authorize: authorizeArchive, run: applyArchive(id, expectedRevision) })

    /**
     * Creates or updates the record that `body.external_id` (or `target_id`) addresses, in one
     * transaction with its mapping and change entry. A write that changes nothing is `unchanged`.
     */
    const upsert = <Name extends ResourceName>(resource: Name, body: Document) =>
      runDirect(upsertCommand(resource, body))

    /** Soft-archives a product; archiving an archived product is unchanged. */
    const archive = (id: RecordId, expectedRevision: number) => runDirect(archiveCommand(id, expectedRevision))

    return {
      preauthorizeUpsert,
      authorizeUpsert,
      authorizeArchive,
      upsert,
      upsertCommand,
      batchWriter,
      get,
      list,
      archive,
      archiveCommand
    } as const
  })
}) {}

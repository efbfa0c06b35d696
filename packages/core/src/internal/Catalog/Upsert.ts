import { Effect } from "effect"
import { CurrentPrincipal } from "../../Auth/Principal.js"
import { ChangeLog } from "../../Changes/ChangeLog.js"
import type { UpsertMode } from "../../Resources/CommonFields.js"
import { definitions } from "../../Resources/Registry.js"
import type { ResourceName } from "../../Resources/Resource.js"
import type { Document, ResourceDefinition, Violation } from "../Resources/ResourceDefinition.js"
import { MappingConflict } from "../../Shared/Errors.js"
import { Ids } from "../../Shared/Ids.js"
import { Transactor } from "../../Shared/Transactor.js"
import { command, runDirect } from "../../Writes/WriteCommand.js"
import {
  bodyParts,
  modeViolations,
  pricesModeBody,
  requiredWriteScopes,
  sentWriteScopes,
  upsertWriteScopes
} from "./Access.js"
import { CatalogRepository } from "../../Catalog/CatalogRepository.js"
import { requireScopes } from "./Caller.js"
import { translationViolations, violation } from "./Document.js"
import { Mappings } from "../../Catalog/Mappings.js"
import { recordView } from "../../Catalog/RecordView.js"
import { makeWriter, type Writer } from "./RecordWriter.js"
import { findReferences } from "./ReferenceSlots.js"
import * as WriteBehind from "./WriteBehind.js"
import { type UpsertBody, writeHeader, type WriteHeader } from "./WriteHeader.js"
import { type WriteResult, writeView } from "./WriteResult.js"

/**
 * The upsert use case (POST /{resource}/upsert): its checks, and the write of one record in its own
 * transaction or of many in an import batch's (`batchWriter`), both through the same `Writer`.
 */
export const makeUpsert = Effect.gen(function* () {
  const repository = yield* CatalogRepository
  const mappings = yield* Mappings
  const transactor = yield* Transactor
  const changeLog = yield* ChangeLog
  const ids = yield* Ids

  const directWriter = makeWriter({ repository, mappings, changeLog }, ids)

  /** What an upsert body writes in its mode; prices mode preserves (ignores) the catalog fields sent. */
  const applicable = (
    definition: ResourceDefinition,
    body: Document,
    mode: UpsertMode
  ): { readonly body: Document; readonly ignored: ReadonlyArray<string> } =>
    mode === "prices" ? pricesModeBody(definition, body) : { body, ignored: [] }

  /** The checks of an upsert that need no database, on its header and body. */
  const checkUpsert = (resource: ResourceName, header: WriteHeader, sent: UpsertBody) =>
    Effect.gen(function* () {
      const principal = yield* CurrentPrincipal
      const definition = definitions[resource]
      const parts = bodyParts(definition, applicable(definition, sent, header.mode).body)
      const notAllowed = modeViolations(header.mode, parts)
      yield* violation(notAllowed.map((issue): Violation => ({ reason: "field_not_allowed_in_mode", issue })))
      yield* requireScopes(principal, requiredWriteScopes(header.mode, parts, false))
    })

  /**
   * The checks of an upsert that need no database: fields allowed in the mode and the write scopes
   * they need. Run again inside upsert; callers may run it first (before an idempotent replay).
   */
  const authorizeUpsert = (resource: ResourceName, sent: UpsertBody) => checkUpsert(resource, writeHeader(sent), sent)

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

  /** The upsert once authorized, written through `writer`: the outcome and the stored record. */
  const applyWrite = <E>(resource: ResourceName, header: WriteHeader, sent: UpsertBody, writer: Writer<E>) =>
    Effect.gen(function* () {
      const principal = yield* CurrentPrincipal
      const definition = definitions[resource]
      const { body, ignored } = applicable(definition, sent, header.mode)
      if (header.currency !== undefined && header.currency !== principal.company.currency) {
        yield* violation([
          {
            reason: "currency_mismatch",
            issue: {
              path: "$.currency",
              message: `the company currency is ${principal.company.currency}, not ${header.currency}`
            }
          }
        ])
      }
      yield* violation(translationViolations(definition, body, principal))
      // A failure before the mapping is written (a lost race) leaves nothing to undo, so it may be caught.
      const result = yield* transactor.atomically(writer.write(principal, definition, header, body)).pipe(
        Effect.catchIf(
          (error): error is MappingConflict => error instanceof MappingConflict && error.reason === "external_id_taken",
          () => writer.raceLost(principal, definition, header.externalId)
        )
      )
      return { ...result, ignored }
    })

  /** The upsert once authorized. */
  const applyUpsert = <Name extends ResourceName>(resource: Name, header: WriteHeader, sent: UpsertBody) =>
    Effect.gen(function* () {
      const principal = yield* CurrentPrincipal
      const result = yield* applyWrite(resource, header, sent, directWriter)
      return {
        outcome: result.outcome,
        record: recordView(resource, result.record, header.externalId, principal, writeView(principal)),
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
    const writer = makeWriter(behind.ports, ids)
    return {
      prefetch: (records: ReadonlyArray<{ readonly resource: ResourceName; readonly body: UpsertBody }>) =>
        behind.prefetch(
          records.flatMap(({ body, resource }) => [
            { resource, externalId: body.external_id },
            ...findReferences(body, definitions[resource].references).flatMap(({ reference, target }) =>
              typeof reference === "string" ? [] : [{ resource: target, externalId: reference.external_id }]
            )
          ])
        ),
      upsert: (resource: ResourceName, body: UpsertBody) => {
        const header = writeHeader(body)
        return Effect.andThen(
          checkUpsert(resource, header, body),
          Effect.map(applyWrite(resource, header, body, writer), (result) => ({
            outcome: result.outcome,
            recordId: result.record.id
          }))
        )
      },
      flush: behind.flush,
      writes: behind.writes
    }
  })

  /** POST /{resource}/upsert as a write command (see `WriteRunner`). */
  const upsertCommand = <Name extends ResourceName>(resource: Name, body: UpsertBody) => {
    const header = writeHeader(body)
    return command({ authorize: checkUpsert(resource, header, body), run: applyUpsert(resource, header, body) })
  }

  /**
   * Creates or updates the record that `body.external_id` (or `target_id`) addresses, in one
   * transaction with its mapping and change entry. A write that changes nothing is `unchanged`.
   */
  const upsert = <Name extends ResourceName>(resource: Name, body: UpsertBody) =>
    runDirect(upsertCommand(resource, body))

  return { preauthorizeUpsert, authorizeUpsert, upsert, upsertCommand, batchWriter } as const
})

import { Effect, Option } from "effect"
import { CurrentPrincipal } from "../../Auth/Principal.js"
import { ChangeLog } from "../../Changes/ChangeLog.js"
import { definitions } from "../../Resources/Registry.js"
import { RecordInUse, RecordNotFound, RevisionConflict } from "../../Shared/Errors.js"
import type { RecordId } from "../../Shared/Ids.js"
import { nowIso } from "../Shared/Now.js"
import { Transactor } from "../../Shared/Transactor.js"
import { command, runDirect } from "../../Writes/WriteCommand.js"
import { CatalogRepository } from "../../Catalog/CatalogRepository.js"
import { mappingScope, requireScopes } from "./Caller.js"
import { Mappings } from "../../Catalog/Mappings.js"
import { recordView } from "../../Catalog/RecordView.js"
import type { StoredRecord } from "../../Catalog/StoredRecord.js"
import { type WriteResult, writeView } from "./WriteResult.js"

/** The archive use case (DELETE /products/{id}): a product leaves the catalog, its record stays readable. */
export const makeArchive = Effect.gen(function* () {
  const repository = yield* CatalogRepository
  const mappings = yield* Mappings
  const transactor = yield* Transactor
  const changeLog = yield* ChangeLog

  const authorizeArchive = Effect.flatMap(CurrentPrincipal, (principal) => requireScopes(principal, ["catalog:write"]))

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
          const at = yield* nowIso
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

  /** DELETE /products/{id} as a write command. */
  const archiveCommand = (id: RecordId, expectedRevision: number) =>
    command({ authorize: authorizeArchive, run: applyArchive(id, expectedRevision) })

  /** Soft-archives a product; archiving an archived product is unchanged. */
  const archive = (id: RecordId, expectedRevision: number) => runDirect(archiveCommand(id, expectedRevision))

  return { authorizeArchive, archive, archiveCommand } as const
})

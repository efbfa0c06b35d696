import { Effect, Option } from "effect"
import { Mappings, type MappingScope } from "../Catalog/Mappings.js"
import { MappingConflict } from "../Shared/Errors.js"
import type { RecordId } from "../Shared/Ids.js"
import { byExternal, byRecord, type State } from "./InMemoryState.js"

/** The external_id mappings in memory, over the shared state. */
export const makeMappings = (state: State): Mappings["Service"] => {
  const insertMapping: Mappings["Service"]["insert"] = (mapping) =>
    Effect.suspend(() => {
      if (state.mappings.has(byExternal(mapping, mapping.externalId))) {
        return Effect.fail(
          new MappingConflict({
            reason: "external_id_taken",
            message: `external_id ${JSON.stringify(mapping.externalId)} is already mapped`
          })
        )
      }
      if (state.mappings.has(byRecord(mapping, mapping.recordId))) {
        return Effect.fail(
          new MappingConflict({
            reason: "record_already_mapped",
            message: `record ${mapping.recordId} is already mapped`
          })
        )
      }
      state.mappings.set(byExternal(mapping, mapping.externalId), mapping)
      state.mappings.set(byRecord(mapping, mapping.recordId), mapping)
      return Effect.void
    })

  const findMany = (scope: MappingScope, externalIds: ReadonlyArray<string>) => {
    const out = new Map<string, RecordId>()
    for (const externalId of externalIds) {
      const found = state.mappings.get(byExternal(scope, externalId))
      if (found !== undefined) out.set(externalId, found.recordId)
    }
    return out
  }

  return Mappings.of({
    find: (scope, externalId) =>
      Effect.sync(() => Option.fromNullishOr(state.mappings.get(byExternal(scope, externalId))?.recordId)),
    findMany: (scope, externalIds) => Effect.sync(() => findMany(scope, externalIds)),
    findAcross: (lookups) => Effect.sync(() => lookups.map((lookup) => findMany(lookup.scope, lookup.externalIds))),
    externalIdsOf: (scope, recordIds) =>
      Effect.sync(() => {
        const out = new Map<RecordId, string>()
        for (const recordId of recordIds) {
          const found = state.mappings.get(byRecord(scope, recordId))
          if (found !== undefined) out.set(recordId, found.externalId)
        }
        return out
      }),
    insert: insertMapping,
    insertMany: (mappings) => Effect.forEach(mappings, insertMapping, { discard: true })
  })
}

import { Effect } from "effect"
import type { MappingScope } from "../Catalog/Mappings.js"
import { ChangeLog, type LoggedChange, maskOf, partsOf } from "../Changes/ChangeLog.js"
import { byRecord, type State, visibleChanges } from "./InMemoryState.js"

/** The change log in memory, over the shared state. */
export const makeChangeLog = (state: State): ChangeLog["Service"] =>
  // A change's position is its rank among its company's changes in the log (the log is serialised by the
  // transaction lock). No change here was numbered by a global sequence: the log never outlives the process.
  ChangeLog.of({
    append: (entry) => Effect.sync(() => void state.changes.push(entry)),
    appendMany: (entries) => Effect.sync(() => void state.changes.push(...entries)),
    head: (companyId) =>
      Effect.map(visibleChanges(state), (end) => {
        let head = 0
        for (let i = 0; i < end; i++) if (state.changes[i]!.companyId === companyId) head++
        return head
      }),
    read: (query) =>
      Effect.map(visibleChanges(state), (end) => {
        const out: Array<LoggedChange> = []
        let position = 0
        for (const entry of state.changes.slice(0, end)) {
          if (entry.companyId !== query.companyId) continue
          position++
          if (position <= query.after) continue
          if (position > query.upTo || out.length >= query.limit) break
          if ((maskOf(partsOf(entry)) & query.visibleMask) === 0) continue
          if (query.resources !== undefined && !query.resources.includes(entry.resource)) continue
          const mapping = state.mappings.get(
            byRecord(
              {
                companyId: entry.companyId,
                connectionId: query.connectionId,
                resource: entry.resource
              } as MappingScope,
              entry.recordId
            )
          )
          const { parts: _parts, ...rest } = entry
          out.push({ ...rest, position, externalId: mapping?.externalId ?? null })
        }
        return out
      }),
    fromGlobalPosition: () => Effect.succeed(0)
  })

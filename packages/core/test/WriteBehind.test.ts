import { InMemory } from "@catalog-sync/core/memory"
import { expect, layer } from "@effect/vitest"
import { Effect, Result } from "effect"
import { CatalogRepository } from "../src/Catalog/CatalogRepository.js"
import { Mappings } from "../src/Catalog/Mappings.js"
import * as WriteBehind from "../src/internal/Catalog/WriteBehind.js"
import { ChangeLog } from "../src/Changes/ChangeLog.js"
import type { CompanyId, ConnectionId, RecordId } from "../src/Shared/Ids.js"
import { uuid } from "./support.js"

const ports = Effect.all({ repository: CatalogRepository, mappings: Mappings, changeLog: ChangeLog })

layer(InMemory.layer)("WriteBehind", (it) => {
  it.effect(
    "a buffered mapping that meets another writer's when flushed fails the flush with WriteBehindAbandoned",
    () =>
      Effect.gen(function* () {
        const direct = yield* ports
        const connection = { companyId: uuid() as CompanyId, connectionId: uuid() as ConnectionId }
        const scope = { ...connection, resource: "products" as const }
        const behind = WriteBehind.make(direct, connection)
        yield* behind.prefetch([
          { resource: "products", externalId: "p1" },
          { resource: "products", externalId: "p2" }
        ])
        const mapping = (recordId: string) => ({
          ...scope,
          externalId: "p1",
          recordId: recordId as RecordId,
          createdAt: "2026-01-01T00:00:00.000Z"
        })
        // Buffered: the prefetch found p1 unmapped.
        yield* behind.ports.mappings.insert(mapping(uuid()))
        // Another writer maps p1 meanwhile.
        yield* direct.mappings.insert(mapping(uuid()))
        const flushed = yield* Effect.result(behind.flush)
        expect(Result.isFailure(flushed) && flushed.failure._tag).toBe("WriteBehindAbandoned")
        // A read through the write-behind flushes first, and is abandoned the same way.
        yield* behind.ports.mappings.insert({ ...mapping(uuid()), externalId: "p2" })
        yield* direct.mappings.insert({ ...mapping(uuid()), externalId: "p2" })
        const read = yield* Effect.result(behind.ports.mappings.find(scope, "p3"))
        expect(Result.isFailure(read) && read.failure._tag).toBe("WriteBehindAbandoned")
      })
  )
})

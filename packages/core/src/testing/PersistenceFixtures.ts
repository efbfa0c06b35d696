import type { Vitest } from "@effect/vitest"
import type { CatalogRepository } from "../Catalog/CatalogRepository.js"
import type { Mappings, MappingScope } from "../Catalog/Mappings.js"
import { emptyIndex, type RecordIndex, type StoredRecord } from "../Catalog/StoredRecord.js"
import type { ChangeLog } from "../Changes/ChangeLog.js"
import type { ResourceName } from "../Resources/Resource.js"
import type { CompanyId, ConnectionId, RecordId } from "../Shared/Ids.js"
import type { Transactor } from "../Shared/Transactor.js"

/** The persistence ports the conformance suite holds an implementation to, and what its tests build with. */

export type PersistencePorts = CatalogRepository | Mappings | Transactor | ChangeLog

/** The tests of one port, registered on the suite's layer. */
export type PortCases = (it: Vitest.MethodsNonLive<PersistencePorts>) => void

export const uuid = () => globalThis.crypto.randomUUID()
export const companyId = () => uuid() as CompanyId
export const connectionId = () => uuid() as ConnectionId

/** Ids in a known order, so that id-ordered pages can be asserted. */
export const orderedIds = (n: number): ReadonlyArray<RecordId> =>
  Array.from({ length: n }, () => uuid())
    .sort()
    .map((id) => id as RecordId)

export const record = (
  company: CompanyId,
  overrides: Partial<Omit<StoredRecord, "index">> & { index?: Partial<RecordIndex> } = {}
): StoredRecord => ({
  id: uuid() as RecordId,
  companyId: company,
  resource: "products",
  revision: 1,
  data: { name: "Sofa" },
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  archivedAt: null,
  ...overrides,
  index: { ...emptyIndex, ...overrides.index }
})

export const scopeOf = (
  company: CompanyId,
  connection: ConnectionId,
  resource: ResourceName = "products"
): MappingScope => ({
  companyId: company,
  connectionId: connection,
  resource
})

export const mapping = (scope: MappingScope, externalId: string, recordId: RecordId) => ({
  ...scope,
  externalId,
  recordId,
  createdAt: "2026-01-01T00:00:00.000Z"
})

import type { Vitest } from "@effect/vitest"
import type { CatalogRepository } from "../Catalog/CatalogRepository.js"
import type { Mapping, Mappings, MappingScope } from "../Catalog/Mappings.js"
import { emptyIndex, type RecordIndex, type StoredRecord } from "../Catalog/StoredRecord.js"
import type { ChangeEntry, ChangeLog } from "../Changes/ChangeLog.js"
import type { ResourceName } from "../Resources/Resource.js"
import type { CompanyId, ConnectionId, RecordId } from "../Shared/Ids.js"
import type { Transactor } from "../Shared/Transactor.js"

/** The persistence ports the conformance suite holds an implementation to. */
export type PersistencePorts = CatalogRepository | Mappings | Transactor | ChangeLog

/** The tests of one port, registered on the suite's layer. */
export type PortCases = (it: Vitest.MethodsNonLive<PersistencePorts>) => void

/** A fresh random UUID. */
export const uuid = () => globalThis.crypto.randomUUID()
/** A fresh company id. */
export const companyId = () => uuid() as CompanyId
/** A fresh connection id. */
export const connectionId = () => uuid() as ConnectionId
/** A fresh record id. */
export const recordId = () => uuid() as RecordId

/** Ids in a known order, so that id-ordered pages can be asserted. */
export const orderedIds = (n: number): ReadonlyArray<RecordId> =>
  Array.from({ length: n }, () => uuid())
    .sort()
    .map((id) => id as RecordId)

/** A product record of `company` at revision 1 (a fresh id, fixed times, an empty index), with `overrides`. */
export const record = (
  company: CompanyId,
  overrides: Partial<Omit<StoredRecord, "index">> & { index?: Partial<RecordIndex> } = {}
): StoredRecord => ({
  id: recordId(),
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

/** The mapping scope of `resource` (products unless named) in a company's connection. */
export const scopeOf = (
  company: CompanyId,
  connection: ConnectionId,
  resource: ResourceName = "products"
): MappingScope => ({
  companyId: company,
  connectionId: connection,
  resource
})

/** The mapping of `externalId` to `id` in `scope`. */
export const mapping = (scope: MappingScope, externalId: string, id: RecordId): Mapping => ({
  ...scope,
  externalId,
  recordId: id,
  createdAt: "2026-01-01T00:00:00.000Z"
})

/** A change entry of `company`: a product created at revision 1 by a fresh connection, with `overrides`. */
export const change = (company: CompanyId, overrides: Partial<ChangeEntry> = {}): ChangeEntry => ({
  companyId: company,
  resource: "products",
  recordId: recordId(),
  revision: 1,
  operation: "created",
  originConnectionId: connectionId(),
  at: "2026-01-01T00:00:00.000Z",
  ...overrides
})

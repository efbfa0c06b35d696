import type { ChangeLog, Ids, Mappings, StoredRecord } from "@catalog-sync/core"

export const uuid = () => globalThis.crypto.randomUUID()
export const companyId = () => uuid() as Ids.CompanyId
export const connectionId = () => uuid() as Ids.ConnectionId
export const recordId = () => uuid() as Ids.RecordId

export const record = (
  company: Ids.CompanyId,
  overrides: Partial<Omit<StoredRecord.StoredRecord, "index">> & { index?: Partial<StoredRecord.RecordIndex> } = {}
): StoredRecord.StoredRecord => ({
  id: recordId(),
  companyId: company,
  resource: "products",
  revision: 1,
  data: { name: "Sofa" },
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  archivedAt: null,
  ...overrides,
  index: {
    active: null,
    collectionId: null,
    brandId: null,
    parentId: null,
    categoryIds: [],
    componentIds: [],
    ...overrides.index
  }
})

export const mapping = (scope: Mappings.MappingScope, externalId: string, id: Ids.RecordId): Mappings.Mapping => ({
  ...scope,
  externalId,
  recordId: id,
  createdAt: "2026-01-01T00:00:00.000Z"
})

export const change = (
  company: Ids.CompanyId,
  overrides: Partial<ChangeLog.ChangeEntry> = {}
): ChangeLog.ChangeEntry => ({
  companyId: company,
  resource: "products",
  recordId: recordId(),
  revision: 1,
  operation: "created",
  originConnectionId: connectionId(),
  at: "2026-01-01T00:00:00.000Z",
  ...overrides
})

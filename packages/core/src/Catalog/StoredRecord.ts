import type { CompanyId, RecordId } from "../Shared/Ids.js"
import type { ResourceName } from "../Resources/Resource.js"
import type { JsonObject } from "../internal/json.js"

/** Columns extracted from a record's document so that list filters and rules hit indexes. */
export interface RecordIndex {
  readonly active: boolean | null
  readonly collectionId: RecordId | null
  readonly brandId: RecordId | null
  readonly parentId: RecordId | null
  readonly categoryIds: ReadonlyArray<RecordId>
  /** Products a bundle groups, so that "which bundles contain this product" is an index lookup. */
  readonly componentIds: ReadonlyArray<RecordId>
}

/** The index of a record that has none of the indexed fields. */
export const emptyIndex: RecordIndex = {
  active: null,
  collectionId: null,
  brandId: null,
  parentId: null,
  categoryIds: [],
  componentIds: []
}

/**
 * A catalog record as persisted: identity, revision, the resource's JSON document and its index. Ports hold
 * any resource's document (`JsonObject`); a rule reading a record of a known resource sees its own type.
 */
export interface StoredRecord<Data extends JsonObject = JsonObject> {
  readonly id: RecordId
  readonly companyId: CompanyId
  readonly resource: ResourceName
  readonly revision: number
  readonly data: Data
  readonly index: RecordIndex
  /** ISO-8601 UTC timestamps. */
  readonly createdAt: string
  readonly updatedAt: string
  readonly archivedAt: string | null
}

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

/**
 * The document of records a store read as JSON text, by record: an answer splices the text in place of
 * parsing, rebuilding and serialising the document again (RecordView's `recordJson`). Kept beside the
 * record rather than on it, so that a record made from another (`{ ...record, data }`) never carries a
 * text that no longer matches its document.
 */
const documentTexts = new WeakMap<StoredRecord, string>()

/** Records `text` (a JSON object's text, exactly `record.data`) as the stored text of `record`'s document. */
export const withDocumentText = <R extends StoredRecord>(record: R, text: string): R => {
  documentTexts.set(record, text)
  return record
}

/** The JSON text `record`'s document was read from, when its store kept it. */
export const documentTextOf = (record: StoredRecord): string | undefined => documentTexts.get(record)

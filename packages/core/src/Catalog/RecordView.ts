import type { Principal } from "../Auth/Principal.js"
import { type ReadMode, visibleDocument } from "./Access.js"
import type { Document, ResourceDefinition } from "../Resources/ResourceDefinition.js"
import type { StoredRecord } from "./StoredRecord.js"

const productState = (record: StoredRecord): "inactive" | "active" | "archived" =>
  record.archivedAt !== null ? "archived" : record.data.active === true ? "active" : "inactive"

/**
 * A record as the caller may see it: identity and revision, then the document without the price or
 * cost fields its scopes do not cover. In prices mode only the price fields are returned.
 */
export const renderRecord = (
  definition: ResourceDefinition,
  record: StoredRecord,
  externalId: string | null,
  principal: Principal,
  mode: ReadMode
): Document => {
  const visible = visibleDocument(definition, record.data, principal.scopes, mode)
  const isProduct = definition.name === "products"
  const pricesVisible = principal.scopes.has("prices:read")
  return {
    id: record.id,
    external_id: externalId,
    revision: record.revision,
    ...(isProduct && mode === "catalog" ? { state: productState(record), archived_at: record.archivedAt } : {}),
    ...visible,
    ...(isProduct && pricesVisible ? { tax_model: principal.company.tax_model } : {}),
    ...(mode === "catalog" ? { created_at: record.createdAt } : {}),
    updated_at: record.updatedAt
  }
}

import type { Principal } from "../../Auth/Principal.js"
import type { ResourceName } from "../../Resources/Resource.js"
import type { ReadMode } from "./Access.js"
import type { RecordView } from "../../Catalog/RecordView.js"

/** What a write did to a record. */
export type Outcome = "created" | "updated" | "unchanged"

/** What a catalog write (an upsert, an archive) answers. */
export interface WriteResult<Name extends ResourceName = ResourceName> {
  readonly outcome: Outcome
  readonly record: RecordView<Name>
  /** Prices mode: the catalog fields the body carried, which were preserved rather than applied (JSON paths). */
  readonly ignored_fields?: ReadonlyArray<string>
}

/** A write answers with what the caller may read: the full record with catalog:read, else the price view. */
export const writeView = (principal: Principal): ReadMode =>
  principal.scopes.has("catalog:read") ? "catalog" : "prices"

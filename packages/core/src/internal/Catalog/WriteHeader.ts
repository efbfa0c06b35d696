import type { CommonUpsertFields, UpsertMode } from "../../Resources/CommonFields.js"
import type { Document } from "../Resources/ResourceDefinition.js"
import type { RecordId } from "../../Shared/Ids.js"

/**
 * An upsert body as its resource's schema decoded it: every resource's body holds the common fields
 * (spec 2.3), typed; the resource's own fields are the document the write merges.
 */
export type UpsertBody = CommonUpsertFields & Document

/** The common fields that steer an upsert, typed, read once from its decoded body and passed on. */
export interface WriteHeader {
  /** The caller's id of the record: its mapping in the connection. */
  readonly externalId: string
  /** An existing record a new mapping of `externalId` binds to. */
  readonly targetId: RecordId | undefined
  /** 0 to create; the record's current revision to update. */
  readonly expectedRevision: number | undefined
  readonly mode: UpsertMode
  /** When sent, it must be the company's currency. */
  readonly currency: string | undefined
}

export const writeHeader = (body: UpsertBody): WriteHeader => ({
  externalId: body.external_id,
  // Decoded by the body's schema as a uuid, it names a record (or none: then the record is not found).
  targetId: body.target_id as RecordId | undefined,
  expectedRevision: body.expected_revision,
  mode: body.mode ?? "catalog",
  currency: body.currency
})

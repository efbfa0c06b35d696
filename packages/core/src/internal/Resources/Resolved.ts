import type { RecordId } from "../../Shared/Ids.js"
import type { Reference } from "../../Shared/Reference.js"

/*
 * References of a decoded body as a resource's mergers receive them: the write replaces every Reference
 * with the id of the record it names before it merges (`RecordWriter`; one left unresolved fails the
 * write), so each is a record id.
 */

/** A Reference the write resolved: the id of the record it names. */
export const resolvedId = (reference: Reference): RecordId => reference as RecordId

/** References the write resolved: the ids of the records they name. */
export const resolvedIds = (references: ReadonlyArray<Reference>): ReadonlyArray<RecordId> =>
  references as ReadonlyArray<RecordId>

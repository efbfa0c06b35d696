import { Schema } from "effect"
import { ExternalId, Uuid } from "./Ids.js"

/** The object form of a Reference: resolved in the caller's company + connection + resource namespace. */
export const ExternalReference = Schema.Struct({ external_id: ExternalId }).annotate({
  identifier: "ExternalReference",
  // How a failure names it (PlainIssues): not just "an object".
  expected: "an object {external_id}"
})

/** A Reference is a record uuid, or `{external_id}` with no other keys. */
export const Reference = Schema.Union([Uuid, ExternalReference]).annotate({
  identifier: "Reference",
  description: "A record uuid, or an object {external_id} resolved in the caller's connection namespace."
})
export type Reference = typeof Reference.Type

/** A reference in words, for error messages. */
export const describe = (ref: Reference): string =>
  typeof ref === "string" ? ref : `external_id ${JSON.stringify(ref.external_id)}`

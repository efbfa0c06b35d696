/** The requests the reference model is asked about, and the answers it predicts for them. */

/** A prediction: accepted with the essentials of the answer, or refused with the error code. */
export type Expected<V> =
  | { readonly _tag: "Accepted"; readonly value: V }
  | { readonly _tag: "Refused"; readonly code: string; readonly currentRevision?: number | undefined }

/** What the model expects of a request, and how an accepted one changes it. */
export interface Planned<V> {
  readonly expected: Expected<V>
  /** Applies an accepted request to the model; `id` is the id the system gave a new record or card. */
  readonly commit: (id: string) => void
}

/** How a reference is sent: `{external_id}` (resolved in the sender's connection) or a uuid (in its company). */
export type Link = { readonly externalId: string } | { readonly id: string }

/** One upsert as the client sends it. */
export interface UpsertRequest {
  readonly resource: "categories" | "products"
  readonly externalId: string
  readonly name?: string | undefined
  /** A category's parent (null clears it) or a product's one category. */
  readonly link?: Link | null | undefined
  /** A product's price (sent in combined mode). */
  readonly price?: string | undefined
  readonly unit?: "piece" | "metre" | undefined
  readonly expectedRevision?: number | undefined
  readonly targetId?: string | undefined
}

/** What the model expects an upsert to answer. */
export interface UpsertOutcome {
  readonly outcome: "created" | "updated" | "unchanged"
  readonly revision: number
  /** The record's id, known unless the write creates it. */
  readonly id: string | undefined
  readonly name: string
}

/** A stock write in the model. */
export interface StockRequest {
  readonly source: Link
  readonly action: "set" | "in" | "out"
  readonly quantity: string
  readonly revision: number
}

/** What the model expects a stock write to answer. */
export interface StockOutcome {
  readonly outcome: "created" | "updated" | "unchanged"
  /** The card's id, known unless the write creates the card. */
  readonly cardId: string | undefined
  readonly before: string
  readonly after: string
  readonly revision: number
}

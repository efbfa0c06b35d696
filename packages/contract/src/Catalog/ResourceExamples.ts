/** The shape of a catalog resource's examples, and the 422 examples several resources share. */
import type { Scope } from "@catalog-sync/core"
import type { Schema } from "effect"
import { type Examples, issuesExample } from "../Examples.js"

export type Body<S extends Schema.Top> = Schema.Codec.Encoded<S>

export interface ResourceExamples {
  readonly record: {
    readonly id: string
    readonly revision: number
    readonly updated_at: string
    readonly external_id: string | null
  }
  /** Upsert bodies, the first one a create that succeeds once the records it references exist. */
  readonly bodies: Examples
  /** The price view of `mode=prices` lists, for resources with price fields. */
  readonly prices?: Record<string, unknown>
  /** 422 errors particular to this resource's upsert, besides validation_failed and idempotency_key_invalid. */
  readonly rules: Examples
  /** Scopes of a catalog-mode write. */
  readonly writeScopes: ReadonlyArray<Scope.Scope>
}

export const missingName = (label: string) =>
  issuesExample("Creating without a name", "missing_required_field", `$.name: name is required to create a ${label}`, [
    { path: "$.name", message: `name is required to create a ${label}` }
  ])

export const priceInCatalogMode = issuesExample(
  "A price field in catalog mode",
  "field_not_allowed_in_mode",
  "price cannot be written in catalog mode; use mode prices or combined",
  [{ path: "$.price", message: "price cannot be written in catalog mode; use mode prices or combined" }]
)

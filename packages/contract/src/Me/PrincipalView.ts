import { Company, Scope } from "@catalog-sync/core"
import { Schema } from "effect"

/** What GET /me tells about the key (spec 2.14: principal fields decided in docs/spec-gaps.md). */
export const PrincipalView = Schema.Struct({
  company: Schema.Struct({
    id: Schema.UUID,
    currency: Schema.String,
    main_language: Schema.String,
    languages: Schema.Array(Schema.String),
    tax_model: Company.TaxModel,
    tax_rates: Schema.Array(Schema.String)
  }),
  connection_id: Schema.UUID,
  key_id: Schema.String,
  key_expires_at: Schema.NullOr(Schema.String).annotations({
    description:
      "When the key stops working (ISO 8601; keys live 1-365 days): warn before it. Null only for a principal an embedding application made without a key."
  }),
  key_scopes: Schema.Array(Scope.Scope).annotations({ description: "The scopes the key was created with." }),
  scopes: Schema.Array(Scope.Scope).annotations({
    description: "The effective scopes: the key's scopes that the company's grants still cover (spec 5.6)."
  }),
  stock_enabled: Schema.Boolean
}).annotations({ identifier: "Principal" })

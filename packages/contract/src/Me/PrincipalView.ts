import { Company, Ids, Scope } from "@catalog-sync/core"
import { Schema } from "effect"

/** What GET /me tells about the key (spec 2.14: principal fields decided in docs/spec-gaps.md). */
export const PrincipalView = Schema.Struct({
  company: Schema.Struct({
    id: Ids.UUID,
    currency: Schema.String,
    main_language: Schema.String,
    languages: Schema.Array(Schema.String),
    tax_model: Company.TaxModel,
    tax_rates: Schema.Array(Schema.String)
  }),
  connection_id: Ids.UUID,
  key_id: Schema.String,
  key_expires_at: Schema.NullOr(Schema.String).annotate({
    description:
      "When the key stops working (ISO 8601; keys live 1-365 days): warn before it. Null only for a principal an embedding application made without a key."
  }),
  key_scopes: Schema.Array(Scope.Scope).annotate({ description: "The scopes the key was created with." }),
  scopes: Schema.Array(Scope.Scope).annotate({
    description: "The effective scopes: the key's scopes that the company's grants still cover (spec 5.6)."
  }),
  stock_enabled: Schema.Boolean
}).annotate({ identifier: "Principal" })

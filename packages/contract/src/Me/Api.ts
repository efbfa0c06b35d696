import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Company, Scope } from "@catalog-sync/core"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { operationExamples } from "../Examples.js"
import { meExamples } from "./Examples.js"

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

export const MeApi = HttpApiGroup.make("me")
  .annotate(OpenApi.Description, "The key itself: verify it and read what it may do.")
  .add(
    HttpApiEndpoint.get("me", "/me")
      .addSuccess(Schema.Struct({ request_id: Schema.UUID, principal: PrincipalView }))
      .annotate(OpenApi.Summary, "Verify the key")
      .annotate(
        OpenApi.Description,
        "Any valid key: its company (currency, languages, tax settings), connection and effective scopes (company grants ∩ key scopes)."
      )
      .annotate(OpenApi.Transform, operationExamples(meExamples))
  )
  .middleware(Authentication)

import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { operationExamples } from "../Examples.js"
import { meExamples } from "./Examples.js"
import { PrincipalView } from "./PrincipalView.js"

export { PrincipalView } from "./PrincipalView.js"

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

import { Ids } from "@catalog-sync/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { requestErrors } from "../ApiErrors.js"
import { Authentication } from "../Authentication.js"
import { operationDocs } from "../Examples.js"
import { meExamples } from "./Examples.js"
import { PrincipalView } from "./PrincipalView.js"

export { PrincipalView } from "./PrincipalView.js"

export const MeApi = HttpApiGroup.make("me")
  .annotate(OpenApi.Description, "The key itself: verify it and read what it may do.")
  .add(
    HttpApiEndpoint.get("me", "/me", {
      success: Schema.Struct({ request_id: Ids.UUID, principal: PrincipalView }),
      error: requestErrors
    })
      .annotate(OpenApi.Summary, "Verify the key")
      .annotate(
        OpenApi.Description,
        "Any valid key: its company (currency, languages, tax settings), connection and effective scopes (company grants ∩ key scopes)."
      )
      .annotate(OpenApi.Transform, operationDocs(meExamples))
  )
  .middleware(Authentication)

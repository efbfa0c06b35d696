import { HttpApiBuilder } from "effect/http-api"
import { Principal } from "@catalog-sync/core"
import { Effect } from "effect"
import { Api } from "@catalog-sync/contract"
import { requestId } from "../RequestId.js"

export const MeHttpLive = HttpApiBuilder.group(Api, "me", (handlers) =>
  handlers.handle("me", () =>
    Effect.gen(function* () {
      const principal = yield* Principal.CurrentPrincipal
      const { id, currency, main_language, languages, tax_model, tax_rates } = principal.company
      return {
        request_id: yield* requestId,
        principal: {
          company: { id, currency, main_language, languages, tax_model, tax_rates },
          connection_id: principal.connectionId,
          key_id: principal.keyId,
          key_expires_at: principal.key?.expiresAt ?? null,
          key_scopes: [...(principal.key?.scopes ?? [])].sort(),
          scopes: Array.from(principal.scopes).sort(),
          stock_enabled: principal.features.stock
        }
      }
    })
  )
)

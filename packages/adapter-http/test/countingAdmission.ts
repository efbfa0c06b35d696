import { Principal } from "@catalog-sync/core"
import { Effect } from "effect"
import type { Admission } from "../src/Admission.js"

/** An admission that counts the requests it admits in `asked`, each as the same principal (of "the-connection"). */
export const countingAdmission = (asked: { admitted: number }) => {
  const principal = { connectionId: "the-connection" } as unknown as Principal.Principal
  const admission = {
    admit: () =>
      Effect.sync(() => {
        asked.admitted++
        return principal
      })
  } as unknown as typeof Admission.Service
  return admission
}

/** The connection of the principal a use case runs as. */
export const currentConnection = Effect.map(
  Principal.CurrentPrincipal,
  (who) => (who as unknown as { readonly connectionId: string }).connectionId
)

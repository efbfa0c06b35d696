import { Effect } from "effect"
import type { Principal } from "../../Auth/Principal.js"
import { ScopeDenied } from "../../Shared/Errors.js"
import type { Scope } from "../../Shared/Scope.js"
import { StockNotEnabled } from "../../Inventory/InventoryErrors.js"

/** Stock features need an active stock package and an enabled inventory module; then the scope. */
export const requireStock = (
  principal: Principal,
  scope: Scope
): Effect.Effect<void, StockNotEnabled | ScopeDenied> => {
  if (!principal.features.stock) {
    return Effect.fail(
      new StockNotEnabled({ message: "stock features need an active stock package and an enabled inventory module" })
    )
  }
  return principal.scopes.has(scope)
    ? Effect.void
    : Effect.fail(new ScopeDenied({ message: `this operation needs the scope ${scope}`, required: [scope] }))
}

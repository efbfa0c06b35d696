/** `catalog-sync stock ...`: stock quantities that come from outside the API (orders and purchases). */
import { InventoryAdmin } from "@catalog-sync/core"
import { Effect } from "effect"
import { Command } from "effect/cli"
import { admin, given, group, optional } from "./Define.js"
import * as Input from "./Inputs.js"
import { companyOption, locationOption } from "./SharedOptions.js"

export const stock = group("stock", "stock quantities that come from outside the API", ["reserve"]).pipe(
  Command.withSubcommands([
    admin(
      "reserve",
      "set the reserved and/or incoming quantity of an item at a location (orders and purchases; bumps the location revision)",
      {
        company: companyOption,
        item: Input.uuid("item", "the inventory item's id"),
        location: locationOption,
        reserved: optional(Input.quantity("reserved", { description: "the reserved quantity", example: "2" })),
        incoming: optional(Input.quantity("incoming", { description: "the incoming quantity", example: "10" }))
      },
      ({ company, item, location, reserved, incoming }) =>
        Effect.flatMap(InventoryAdmin.InventoryAdmin, (inventory) =>
          inventory.reserve(company, item, location, given({ reserved, incoming }))
        )
    )
  ])
)

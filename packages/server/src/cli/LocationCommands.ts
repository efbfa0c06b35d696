/** `catalog-sync location ...`: a company's stock locations and which connections may read or write them. */
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { admin, group } from "./Define.js"
import * as Input from "./Inputs.js"
import { companyOption, connectionOption, locationOption } from "./SharedOptions.js"

export const location = group("location", "stock locations", ["create", "assign", "unassign", "list"]).pipe(
  Command.withSubcommands([
    admin(
      "create",
      "create a stock location of a company",
      {
        company: companyOption,
        name: Input.displayName("name", { description: "the location's name", example: "Warehouse" })
      },
      ({ company, name }, admin) => admin.createLocation(company, name)
    ),
    admin(
      "assign",
      "let a connection read (and write) a location's stock",
      {
        connection: connectionOption,
        location: locationOption,
        writable: Input.onOff("writable", {
          description: "whether the connection may write the stock",
          default: "on"
        }).pipe(Flag.withDefault(true))
      },
      ({ connection, location, writable }, admin) => admin.assignLocation(connection, location, writable)
    ),
    admin(
      "unassign",
      "end a connection's access to a location's stock",
      { connection: connectionOption, location: locationOption },
      ({ connection, location }, admin) =>
        Effect.as(admin.unassignLocation(connection, location), { connection_id: connection, location_id: location })
    ),
    admin("list", "list a company's locations", { company: companyOption }, ({ company }, admin) =>
      admin.listLocations(company)
    )
  ])
)

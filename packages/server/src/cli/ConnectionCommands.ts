/** `catalog-sync connection ...`: a company's connections, one per source system. */
import { Command } from "effect/cli"
import { admin, group } from "./Define.js"
import * as Input from "./Inputs.js"
import { companyOption, connectionId } from "./SharedOptions.js"

export const connection = group("connection", "connections, one per source system", [
  "create",
  "rename",
  "enable",
  "disable",
  "list"
]).pipe(
  Command.withSubcommands([
    admin(
      "create",
      "create a connection of a company",
      {
        company: companyOption,
        name: Input.displayName("name", { description: "the source system's name", example: "ERP" })
      },
      ({ company, name }, admin) => admin.createConnection(company, name)
    ),
    admin(
      "rename",
      "rename a connection",
      {
        id: connectionId,
        name: Input.displayName("name", { description: "the source system's new name", example: "ERP (main)" })
      },
      ({ id, name }, admin) => admin.renameConnection(id, name)
    ),
    admin("enable", "let a connection's keys work again", { id: connectionId }, ({ id }, admin) =>
      admin.setConnectionEnabled(id, true)
    ),
    admin("disable", "stop every key of a connection", { id: connectionId }, ({ id }, admin) =>
      admin.setConnectionEnabled(id, false)
    ),
    admin("list", "list a company's connections", { company: companyOption }, ({ company }, admin) =>
      admin.listConnections(company)
    )
  ])
)

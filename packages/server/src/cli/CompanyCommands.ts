/** `catalog-sync company ...`: companies, their settings, their enabling and their granted scopes. */
import { Command, Options } from "@effect/cli"
import { admin, given, group, optional } from "./Define.js"
import * as Input from "./Inputs.js"
import { companyId } from "./SharedOptions.js"

const companyOptions = {
  currency: optional(Input.currency),
  main_language: optional(Input.mainLanguage),
  languages: optional(Input.languages),
  tax_model: optional(
    Options.choice("tax-model", ["inclusive", "exclusive", "none", "unconfigured"]).pipe(
      Options.withDescription("how prices relate to tax")
    )
  ),
  tax_rates: optional(Input.list("tax-rates", "the configured tax rates in percent, comma-separated, e.g. 20,10")),
  storage_slug: optional(
    Input.text("storage-slug", "the company's media folder: 2-63 lower-case letters, digits or dashes")
  ),
  subscription_active: optional(Input.onOff("subscription", "whether the subscription is active (default on)")),
  stock_package: optional(Input.onOff("stock-package", "the stock package (default off)")),
  inventory_module: optional(Input.onOff("inventory-module", "the inventory module (default off)")),
  granted_scopes: optional(Input.scopes("the scopes granted to the company")),
  domains: optional(Input.list("domains", "custom domains, comma-separated, e.g. api.acme.example"))
}

export const company = group("company", "companies: create, change, enable or disable, grant scopes", [
  "create",
  "update",
  "enable",
  "disable",
  "grant",
  "revoke",
  "show",
  "list"
]).pipe(
  Command.withSubcommands([
    admin(
      "create",
      "create a company (the platform enables it and grants its scopes)",
      {
        ...companyOptions,
        name: Input.text("name", "the company's name"),
        currency: Input.currency,
        main_language: Input.mainLanguage,
        storage_slug: Input.text(
          "storage-slug",
          "the company's media folder: 2-63 lower-case letters, digits or dashes"
        )
      },
      ({ name, currency, main_language, storage_slug, ...rest }, admin) =>
        admin.createCompany({ name, currency, main_language, storage_slug, ...given(rest) })
    ),
    admin(
      "update",
      "change a company: any option of create, and --enabled",
      {
        id: companyId,
        name: optional(Input.text("name", "the company's name")),
        enabled: optional(Input.onOff("enabled", "whether the company may use the API")),
        ...companyOptions
      },
      ({ id, ...rest }, admin) => admin.updateCompany(id, given(rest))
    ),
    admin("enable", "let a company use the API again", { id: companyId }, ({ id }, admin) =>
      admin.updateCompany(id, { enabled: true })
    ),
    admin("disable", "stop all access of a company at once", { id: companyId }, ({ id }, admin) =>
      admin.updateCompany(id, { enabled: false })
    ),
    admin(
      "grant",
      "grant scopes to a company",
      { id: companyId, scopes: Input.scopes("the scopes to grant") },
      ({ id, scopes }, admin) => admin.grantScopes(id, scopes)
    ),
    admin(
      "revoke",
      "take scopes back from a company (its keys lose them at once)",
      { id: companyId, scopes: Input.scopes("the scopes to revoke") },
      ({ id, scopes }, admin) => admin.revokeScopes(id, scopes)
    ),
    admin("show", "show one company", { id: companyId }, ({ id }, admin) => admin.getCompany(id)),
    admin("list", "list every company", {}, (_, admin) => admin.listCompanies)
  ])
)

/** `catalog-sync company ...`: companies, their settings, their enabling and their granted scopes. */
import { Command } from "effect/cli"
import { admin, given, group, optional } from "./Define.js"
import * as Input from "./Inputs.js"
import { companyId } from "./SharedOptions.js"

/** The settings of a company: on create, a setting left out takes its default; on update, it keeps its value. */
const settings = (create: boolean) => {
  const fallback = (value: string) => (create ? { default: value } : {})
  return {
    languages: optional(Input.languages(fallback("only the main language"))),
    tax_model: optional(
      Input.choice("tax-model", ["inclusive", "exclusive", "none", "unconfigured"]).pipe(
        Input.withHelp("tax-model", { description: "how prices relate to tax", ...fallback("unconfigured") })
      )
    ),
    tax_rates: optional(
      Input.list("tax-rates", {
        description: "the configured tax rates in percent, comma-separated",
        example: "20,10",
        ...fallback("none")
      })
    ),
    subscription_active: optional(
      Input.onOff("subscription", { description: "whether the subscription is active", ...fallback("on") })
    ),
    stock_package: optional(
      Input.onOff("stock-package", { description: "whether the company has the stock package", ...fallback("off") })
    ),
    inventory_module: optional(
      Input.onOff("inventory-module", {
        description: "whether the company has the inventory module",
        ...fallback("off")
      })
    ),
    granted_scopes: optional(Input.scopes({ description: "the scopes granted to the company", ...fallback("none") })),
    domains: optional(
      Input.list("domains", {
        description: "custom domains, comma-separated",
        example: "api.acme.example",
        ...fallback("none")
      })
    )
  }
}

const name = Input.displayName("name", { description: "the company's name", example: '"Acme Furniture"' })
const storageSlug = Input.text("storage-slug", {
  description: "the company's media folder: 2-63 lower-case letters, digits or dashes",
  example: "acme"
})

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
        name,
        currency: Input.currency,
        main_language: Input.mainLanguage,
        storage_slug: storageSlug,
        ...settings(true)
      },
      ({ name, currency, main_language, storage_slug, ...rest }, admin) =>
        admin.createCompany({ name, currency, main_language, storage_slug, ...given(rest) })
    ),
    admin(
      "update",
      "change a company: any option of create, and --enabled; what is left out keeps its value",
      {
        id: companyId,
        name: optional(name),
        enabled: optional(Input.onOff("enabled", "whether the company may use the API")),
        currency: optional(Input.currency),
        main_language: optional(Input.mainLanguage),
        storage_slug: optional(storageSlug),
        ...settings(false)
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
      { id: companyId, scopes: Input.scopes({ description: "the scopes to grant" }) },
      ({ id, scopes }, admin) => admin.grantScopes(id, scopes)
    ),
    admin(
      "revoke",
      "take scopes back from a company (its keys lose them at once)",
      { id: companyId, scopes: Input.scopes({ description: "the scopes to revoke" }) },
      ({ id, scopes }, admin) => admin.revokeScopes(id, scopes)
    ),
    admin("show", "show one company", { id: companyId }, ({ id }, admin) => admin.getCompany(id)),
    admin("list", "list every company", {}, (_, admin) => admin.listCompanies)
  ])
)

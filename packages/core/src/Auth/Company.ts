import { Schema } from "effect"
import { matching } from "../internal/Shared/Text.js"
import { Money } from "../internal/Shared/Decimal.js"
import { CompanyId, ConnectionId } from "../Shared/Ids.js"
import { Scope } from "../Shared/Scope.js"
import { LanguageCode } from "../Shared/Translations.js"

/** How a company's prices treat tax. */
export const TaxModel = Schema.Literals(["inclusive", "exclusive", "none", "unconfigured"])
export type TaxModel = typeof TaxModel.Type

/** The company settings that catalog rules depend on. */
export const CompanySettings = Schema.Struct({
  id: CompanyId,
  currency: Schema.String.check(matching(/^[A-Z]{3}$/, "must be a string matching the pattern ^[A-Z]{3}$")),
  main_language: LanguageCode,
  /** Every enabled language, the main one included. */
  languages: Schema.Array(LanguageCode),
  tax_model: TaxModel,
  /** Configured product tax rates, as decimal strings (percent). */
  tax_rates: Schema.Array(Money),
  storage_slug: Schema.String
})
export type CompanySettings = typeof CompanySettings.Type

/** A company as the platform administrator manages it. */
export const Company = Schema.Struct({
  ...CompanySettings.fields,
  name: Schema.String,
  enabled: Schema.Boolean,
  subscription_active: Schema.Boolean,
  stock_package: Schema.Boolean,
  inventory_module: Schema.Boolean,
  /** Scopes the platform granted; a key's effective scopes never exceed them. */
  granted_scopes: Schema.Array(Scope),
  /** Custom domains: a request through one of them must use this company's key. */
  domains: Schema.Array(Schema.String),
  created_at: Schema.String
}).annotate({ identifier: "Company" })
export type Company = typeof Company.Type

/** A source system's connection; keys are created under it and actions are attributed to it. */
export const Connection = Schema.Struct({
  id: ConnectionId,
  company_id: CompanyId,
  name: Schema.String,
  enabled: Schema.Boolean,
  created_at: Schema.String
}).annotate({ identifier: "Connection" })
export type Connection = typeof Connection.Type

/** The settings of a company that catalog rules depend on. */
export const settingsOf = (company: Company): CompanySettings => ({
  id: company.id,
  currency: company.currency,
  main_language: company.main_language,
  languages: company.languages,
  tax_model: company.tax_model,
  tax_rates: company.tax_rates,
  storage_slug: company.storage_slug
})

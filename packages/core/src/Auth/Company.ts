import { Schema } from "effect"
import { Money } from "../Shared/Decimal.js"
import { CompanyId } from "../Shared/Ids.js"
import { LanguageCode } from "../Shared/Translations.js"

export const TaxModel = Schema.Literal("inclusive", "exclusive", "none", "unconfigured")
export type TaxModel = typeof TaxModel.Type

/** The company settings that catalog rules depend on. */
export const CompanySettings = Schema.Struct({
  id: CompanyId,
  currency: Schema.String.pipe(Schema.pattern(/^[A-Z]{3}$/)),
  main_language: LanguageCode,
  /** Every enabled language, the main one included. */
  languages: Schema.Array(LanguageCode),
  tax_model: TaxModel,
  /** Configured product tax rates, as decimal strings (percent). */
  tax_rates: Schema.Array(Money),
  storage_slug: Schema.String
})
export type CompanySettings = typeof CompanySettings.Type

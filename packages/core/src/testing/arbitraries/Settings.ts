/**
 * Arbitraries of tenants: a company's settings (currency, main and extra languages, tax model and
 * rates) and the principal that acts in it (connection, scopes, stock features).
 */
import * as fc from "fast-check"
import type { CompanySettings } from "../../Auth/Company.js"
import { TaxModel } from "../../Auth/Company.js"
import type { Principal } from "../../Auth/Principal.js"
import { codes as currencyCodes } from "../../Shared/Currency.js"
import { canonical, fixed } from "../../internal/Shared/Decimal.js"
import type { CompanyId, ConnectionId } from "../../Shared/Ids.js"
import { all as allScopes, type Scope } from "../../Shared/Scope.js"
import { languageCode } from "./Values.js"

const currencies = Array.from(currencyCodes).sort()

/**
 * A company's settings: an ISO 4217 currency, a main language and 0-3 extra ones, a tax model and 0-3
 * configured tax rates (distinct by value, stored with two decimals as the platform keeps them). Every
 * draw is a new company (a fresh id and storage slug).
 */
export const companySettings: fc.Arbitrary<CompanySettings> = fc
  .record({
    id: fc.uuid(),
    currency: fc.constantFrom(...currencies),
    languages: fc.uniqueArray(languageCode, { minLength: 1, maxLength: 4 }),
    tax_model: fc.constantFrom(...TaxModel.literals),
    tax_rates: fc.uniqueArray(
      fc.oneof(
        fc.constantFrom("20", "10", "7.7", "0"),
        fc
          .integer({ min: 0, max: 9_999 })
          .map((hundredths) => `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, "0")}`)
      ),
      { maxLength: 3, selector: canonical }
    ),
    slug: fc.stringMatching(/^[a-z][a-z0-9-]{2,20}$/)
  })
  .map(({ id, currency, languages, tax_model, tax_rates, slug }) => ({
    id: id as CompanyId,
    currency,
    main_language: languages[0]!,
    languages,
    tax_model,
    tax_rates: tax_rates.map((rate) => fixed(rate, 2)),
    storage_slug: `${slug}-${id.slice(0, 8)}`
  }))

/** What a principal may do: the catalog scopes at least, often all of them, sometimes with the stock features. */
export interface PrincipalOptions {
  /** Scopes the principal always holds (default: none beyond the drawn ones). */
  readonly scopes?: ReadonlyArray<Scope> | undefined
  /** Whether the stock features are active; drawn when omitted. */
  readonly stock?: boolean | undefined
}

/** A principal acting in `settings` through a new connection, with a subset of the scopes. */
export const principal = (settings: CompanySettings, options: PrincipalOptions = {}): fc.Arbitrary<Principal> =>
  fc
    .record({
      connectionId: fc.uuid(),
      scopes: fc.subarray([...allScopes]),
      stock: options.stock === undefined ? fc.boolean() : fc.constant(options.stock)
    })
    .map(({ connectionId, scopes, stock }) => ({
      company: settings,
      connectionId: connectionId as ConnectionId,
      keyId: `kit-${connectionId.slice(0, 8)}`,
      scopes: new Set([...scopes, ...(options.scopes ?? [])]),
      features: { stock }
    }))

/** A principal with every scope and the stock features: what the body and model arbitraries write as. */
export const fullPrincipal = (settings: CompanySettings, connectionId: string): Principal => ({
  company: settings,
  connectionId: connectionId.toLowerCase() as ConnectionId,
  keyId: `kit-${connectionId.slice(0, 8)}`,
  scopes: new Set(allScopes),
  features: { stock: true }
})

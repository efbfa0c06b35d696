/**
 * What the plan's record arbitraries draw alike, and the body arbitraries reuse: optional fields,
 * translations, a configured tax rate, references to planned records and indexes into a plan's counts.
 */
import * as fc from "fast-check"
import type { CompanySettings } from "../../Auth/Company.js"
import { definitions } from "../../Resources/Registry.js"
import type { ResourceName } from "../../Resources/Resource.js"
import type { Document } from "../../internal/Resources/ResourceDefinition.js"
import { Ref } from "./CatalogPlan.js"
import { sameValue, translations } from "./Values.js"

export const ref = (resource: ResourceName, externalId: string) =>
  fc.boolean().map((byId) => new Ref(resource, externalId, byId))

export const index = (count: number) => fc.nat({ max: Math.max(0, count - 1) })

export const optionalIndex = (count: number) =>
  count === 0 ? fc.constant(undefined) : fc.option(index(count), { nil: undefined })

/** Translations into the company's other languages, with the keys the resource translates. */
export const translationsFor = (settings: CompanySettings, resource: ResourceName) =>
  translations(
    settings.languages.filter((language) => language !== settings.main_language),
    definitions[resource].translatable
  )

export const maybe = <A>(arbitrary: fc.Arbitrary<A>) => fc.option(arbitrary, { nil: undefined, freq: 2 })

/** Drops the keys whose value is undefined. */
export const defined = (body: Document): Document =>
  Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined))

/** A tax rate the company has configured, written in any form of its value; none when it has none. */
export const configuredTaxRate = (settings: CompanySettings): fc.Arbitrary<string | undefined> =>
  settings.tax_rates.length === 0
    ? fc.constant(undefined)
    : fc.constantFrom(...settings.tax_rates).chain((rate) => sameValue(rate, 2))

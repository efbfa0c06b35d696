import * as Brand from "../Brand/Brand.js"
import * as Category from "../Category/Category.js"
import * as Collection from "../Collection/Collection.js"
import * as CustomizationGroup from "../CustomizationGroup/CustomizationGroup.js"
import * as CustomizationOption from "../CustomizationOption/CustomizationOption.js"
import * as CustomizationType from "../CustomizationType/CustomizationType.js"
import * as Product from "../Product/Product.js"
import type { ResourceName } from "./Resource.js"
import type { ResourceDefinition } from "../internal/Resources/ResourceDefinition.js"

/** Every catalog resource's definition, by its path name, each with its own body and record schemas. */
export const definitions = {
  products: Product.definition,
  categories: Category.definition,
  collections: Collection.definition,
  brands: Brand.definition,
  "customization-types": CustomizationType.definition,
  "customization-groups": CustomizationGroup.definition,
  "customization-options": CustomizationOption.definition
} as const satisfies { readonly [Name in ResourceName]: ResourceDefinition }

/** The type of `definitions`. */
export type Definitions = typeof definitions

import type { BrandDocument } from "../../Brand/Brand.js"
import type { CategoryDocument } from "../../Category/Category.js"
import type { CollectionDocument } from "../../Collection/Collection.js"
import type { CustomizationGroupDocument } from "../../CustomizationGroup/CustomizationGroup.js"
import type { CustomizationOptionDocument } from "../../CustomizationOption/CustomizationOption.js"
import type { CustomizationTypeDocument } from "../../CustomizationType/CustomizationType.js"
import type { ProductDocument } from "../../Product/Product.js"
import type { ResourceName } from "../../Resources/Resource.js"

/** Each resource's stored document: what its rules read of its own records and of those they look up. */
export interface Documents {
  readonly products: ProductDocument
  readonly categories: CategoryDocument
  readonly collections: CollectionDocument
  readonly brands: BrandDocument
  readonly "customization-types": CustomizationTypeDocument
  readonly "customization-groups": CustomizationGroupDocument
  readonly "customization-options": CustomizationOptionDocument
}

/** The stored document of a record of `Name`. */
export type DocumentOf<Name extends ResourceName> = Documents[Name]

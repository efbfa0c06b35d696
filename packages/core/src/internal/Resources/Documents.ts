import type { ResourceName } from "../../Resources/Resource.js"

/**
 * Each resource's stored document: what its rules read of its own records and of those they look up.
 * Each resource module adds its own entry (`declare module`), so that this map depends on no resource
 * and a resource's rules can name the documents of the others without a cycle between their modules.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the resource modules
export interface Documents {}

/** The stored document of a record of `Name`. */
export type DocumentOf<Name extends ResourceName> = Documents[Name]

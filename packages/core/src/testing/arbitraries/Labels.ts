/**
 * What the invalid-body arbitraries share: the labelled `InvalidWrite` they draw, the valid writes they
 * break one rule of, and references that resolve to nothing.
 */
import * as fc from "fast-check"
import type { ResourceName } from "../../Resources/Resource.js"
import type { Document } from "../../internal/Resources/ResourceDefinition.js"
import type { World } from "../World.js"
import { type ValidWrite, validWrite } from "./ValidBodies.js"
import { uuid } from "./Values.js"

/** A body the use case refuses, with the answer it must give. */
export interface InvalidWrite {
  readonly resource: ResourceName
  readonly body: Document
  /** The rule the body breaks, in words. */
  readonly rule: string
  /** The error code of the answer (`error.code` in the API's error body). */
  readonly code: string
  /** A JSON path among the error's issues, or null for an error that has none. */
  readonly path: string | null
}

export type Body = Document

export const without = (body: Body, ...keys: ReadonlyArray<string>): Body =>
  Object.fromEntries(Object.entries(body).filter(([key]) => !keys.includes(key)))

export const modeOf = (body: Body) => (body.mode ?? "catalog") as string

export const label = (
  resource: ResourceName,
  rule: string,
  code: string,
  path: string | null,
  body: Body
): InvalidWrite => ({
  resource,
  body,
  rule,
  code,
  path
})

/** Valid writes of the resource that satisfy `keep`. */
export const base = (world: World, resource: ResourceName, keep: (write: ValidWrite) => boolean = () => true) =>
  validWrite(world, resource).filter(keep)

export const notPrices = (write: ValidWrite) => modeOf(write.body) !== "prices"
export const creates = (write: ValidWrite) => write.writes === "create"
export const catalogMode = (write: ValidWrite) => modeOf(write.body) === "catalog"

/** A JSON key no body schema knows. */
export const unknownKey = fc.stringMatching(/^[a-z][a-z_]{0,10}$/).map((key) => `x_${key}`)

/** A reference to no record: a random uuid, or an external id nothing is mapped to. */
export const dangling = fc.oneof(
  uuid,
  uuid.map((id) => ({ external_id: `missing-${id}` }))
)

/** Whether `path` is `within` or under it (`$.fields[0].name` is under `$.fields[0]`). */
export const isWithin = (path: string, within: string): boolean =>
  path === within || path.startsWith(`${within}.`) || path.startsWith(`${within}[`)

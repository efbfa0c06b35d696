/**
 * What the valid-body arbitraries share: the `ValidWrite` they draw, references to a world's records as a
 * client sends them, the control fields of creates and updates, and how a resource mixes the two.
 */
import * as fc from "fast-check"
import type { ResourceName } from "../../Resources/Resource.js"
import type { Document } from "../../internal/Resources/ResourceDefinition.js"
import type { World } from "../World.js"
import { defined, translationsFor } from "./BodyParts.js"
import { externalId } from "./Values.js"

/** A body the use case accepts, and whether it creates a record (`created`) or updates one (`updated` or `unchanged`). */
export interface ValidWrite {
  readonly resource: ResourceName
  readonly body: Document
  readonly writes: "create" | "update"
}

export type Body = Document

export const maybe = <A>(arbitrary: fc.Arbitrary<A>) => fc.option(arbitrary, { nil: undefined, freq: 2 })

/** Some of the keys, each drawn from its arbitrary. */
export const some = (fields: Readonly<Record<string, fc.Arbitrary<unknown>>>): fc.Arbitrary<Body> =>
  fc.record(fields, { requiredKeys: [] })

/** A record of the world as a client names it: its uuid (in any letter case) or `{external_id}`. */
export const reference = (world: World, resource: ResourceName, externalId: string): fc.Arbitrary<unknown> => {
  const id = world.idOf(resource, externalId)
  return fc.constantFrom<unknown>({ external_id: externalId }, id, id.toUpperCase())
}

export const referenceTo = <R extends { readonly externalId: string }>(
  world: World,
  resource: ResourceName,
  records: ReadonlyArray<R>
) => fc.constantFrom(...records).chain((record) => reference(world, resource, record.externalId))

/** An external id no record of `resource` has in the world: the body creates a record. */
export const freshExternalId = (world: World, resource: ResourceName) => {
  const taken = new Set(world.plan.records.filter((r) => r.resource === resource).map((r) => r.externalId))
  return externalId.filter((id) => !taken.has(id))
}

export type Mode = "catalog" | "combined" | "prices"

export const noRecords = (needed: string, of: string) =>
  `the world has no ${needed}, so no valid body of ${of} can be drawn: plan it with Arbitraries.catalog(settings, limits, everyKind)`

/** The control fields of a create: a fresh external id, no or a zero revision, maybe the company currency. */
export const createControl = (world: World, resource: ResourceName, mode: Exclude<Mode, "prices">) =>
  fc
    .record({
      external_id: freshExternalId(world, resource),
      expected_revision: maybe(fc.constant(0)),
      currency: maybe(fc.constant(world.plan.settings.currency)),
      translations: maybe(translationsFor(world.plan.settings, resource)),
      sendMode: fc.boolean()
    })
    .map(({ sendMode, ...control }) =>
      defined({ ...control, mode: mode === "combined" || sendMode ? mode : undefined })
    )

/** The control fields of an update of a world record (revision 1). */
export const updateControl = (world: World, resource: ResourceName, externalId: string, mode: Mode) =>
  fc
    .record({
      currency: maybe(fc.constant(world.plan.settings.currency)),
      translations: maybe(translationsFor(world.plan.settings, resource)),
      sendMode: fc.boolean()
    })
    .map(({ sendMode, ...control }) =>
      defined({
        external_id: externalId,
        expected_revision: 1,
        ...control,
        mode: mode !== "catalog" || sendMode ? mode : undefined
      })
    )

export const mergeBodies = (control: fc.Arbitrary<Body>, fields: fc.Arbitrary<Body>) =>
  fc.tuple(control, fields).map(([c, f]) => defined({ ...c, ...f }))

export const modes = (update: boolean): fc.Arbitrary<Mode> =>
  update ? fc.constantFrom<Mode>("catalog", "combined", "prices") : fc.constantFrom<Mode>("catalog", "combined")

/** Creates and updates, as the world has records to update. */
export const createOrUpdate = <R>(
  existing: ReadonlyArray<R>,
  create: (mode: Exclude<Mode, "prices">) => fc.Arbitrary<Body>,
  update: (record: R, mode: Mode) => fc.Arbitrary<Body>,
  resource: ResourceName
): fc.Arbitrary<ValidWrite> => {
  const creates = modes(false).chain((mode) =>
    create(mode as Exclude<Mode, "prices">).map((body): ValidWrite => ({ resource, body, writes: "create" }))
  )
  if (existing.length === 0) return creates
  const updates = fc
    .tuple(fc.constantFrom(...existing), modes(true))
    .chain(([record, mode]) => update(record, mode).map((body): ValidWrite => ({ resource, body, writes: "update" })))
  return fc.oneof(creates, updates)
}

import { Result, type Schema } from "effect"
import { ValidationFailed } from "../Shared/Errors.js"
import { boundedDecoder } from "../internal/Shared/BoundedDecode.js"
import type { ResourceName } from "../Resources/Resource.js"
import type { UpsertBody } from "../internal/Catalog/WriteHeader.js"
import { definitions } from "../Resources/Registry.js"

/**
 * Decodes `input` with `schema` strictly (unknown keys fail at any depth) with bounded work: lists are
 * held to their item limits before their items are decoded, and a failure lists its first failing
 * locations (see `BoundedDecode`). The schemas decoded here are synchronous, so the answer is a Result
 * (`Effect.fromResult` makes it an Effect): an import batch decodes its bodies without an Effect step each.
 */
export const decodeStrict = <A, I>(
  schema: Schema.Codec<A, I>,
  input: unknown,
  what: string
): Result.Result<A, ValidationFailed> => decoderOf(schema, what)(input)

/** `decodeStrict` of one schema, made once (the bodies of every write are decoded by one of these). */
export const decoderOf = <A, I>(schema: Schema.Codec<A, I>, what: string) => {
  const decode = boundedDecoder(schema)
  return (input: unknown): Result.Result<A, ValidationFailed> =>
    Result.mapError(decode(input), (issues) => new ValidationFailed({ message: `${what} is not valid`, issues }))
}

/**
 * The strict decoder of `resource`'s upsert body, made once per caller: its answer has the type of the
 * resource's body, of which the common fields every body shares are typed (`UpsertBody`).
 */
export const upsertDecoderOf = (
  resource: ResourceName,
  what: string
): ((input: unknown) => Result.Result<UpsertBody, ValidationFailed>) => decoderOf(definitions[resource].body, what)

const upsertDecoders = new Map<ResourceName, (input: unknown) => Result.Result<UpsertBody, ValidationFailed>>()

/**
 * Decodes an upsert body of `resource` strictly (`the product body is not valid`).
 *
 * @example
 * ```ts
 * import { Decode } from "@catalog-sync/core"
 * import { Result } from "effect"
 *
 * const decoded = Decode.decodeUpsert("categories", { external_id: "sofas", name: "Sofas", colour: "red" })
 * if (Result.isFailure(decoded)) console.log(decoded.failure.issues) // [{ path: "$.colour", ... }]
 * ```
 */
export const decodeUpsert = (resource: ResourceName, input: unknown): Result.Result<UpsertBody, ValidationFailed> => {
  let decode = upsertDecoders.get(resource)
  if (decode === undefined) {
    decode = upsertDecoderOf(resource, `the ${definitions[resource].label} body`)
    upsertDecoders.set(resource, decode)
  }
  return decode(input)
}

import { Either, ParseResult, Schema } from "effect"
import { ValidationFailed, type Issue } from "../Shared/Errors.js"
import { plainIssues } from "../Shared/PlainIssues.js"
import type { ResourceName } from "../Resources/Resource.js"
import type { Document } from "../Resources/ResourceDefinition.js"
import { definitions } from "../Resources/Registry.js"

/** Every failing field of a parse error, as `$.path` and its rule in plain words. */
export const issuesOf = (error: ParseResult.ParseError): ReadonlyArray<Issue> => plainIssues(error)

/** Unknown keys fail at any depth, and every failure is listed. */
export const strictDecoding = { errors: "all", onExcessProperty: "error" } as const

/**
 * Decodes `input` with `schema` strictly: unknown keys at any depth fail, and every failure is listed.
 * The schemas decoded here are synchronous, so the answer is an Either (which is also an Effect): an
 * import batch decodes its bodies without an Effect step each. (Schema keeps each one's parser itself.)
 */
export const decodeStrict = <A, I>(
  schema: Schema.Schema<A, I>,
  input: unknown,
  what: string
): Either.Either<A, ValidationFailed> =>
  Either.mapLeft(
    Schema.decodeUnknownEither(schema, strictDecoding)(input),
    (error) => new ValidationFailed({ message: `${what} is not valid`, issues: issuesOf(error) })
  )

/** Decodes an upsert body of `resource` strictly. */
export const decodeUpsert = (resource: ResourceName, input: unknown): Either.Either<Document, ValidationFailed> =>
  decodeStrict(definitions[resource].body, input, `the ${definitions[resource].label} body`) as Either.Either<
    Document,
    ValidationFailed
  >

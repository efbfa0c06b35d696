/**
 * Which part of a request a decode error of HttpApi is about. The framework's error keeps only formatted
 * issues, so the endpoint's own schemas decide: the endpoint is found the way the router finds it, and
 * its schemas are tried on the request in the order the framework decodes them (path, body, headers,
 * query). The first that fails is the part, and its parse error (the issue tree of that schema) gives
 * the details. A decode error that none of them reproduces did not come from the request.
 */
import { HttpApiSchema, HttpMethod, HttpServerRequest } from "@effect/platform"
import { PlainIssues } from "@catalog-sync/core"
import { Effect, Option, ParseResult, Schema } from "effect"
import type * as AST from "effect/SchemaAST"
import { type Endpoint, findEndpoint } from "./ContractEndpoints.js"
import type { Rendered } from "./ErrorResponses.js"

export type RequestPart = "path" | "body" | "headers" | "query"

export interface DecodeFailure {
  readonly part: RequestPart
  readonly error: ParseResult.ParseError
}

const failureOf = (
  part: RequestPart,
  schema: Option.Option<{ readonly ast: AST.AST }>,
  input: Effect.Effect<unknown, unknown>
) =>
  Option.match(schema, {
    onNone: () => Effect.succeed(Option.none<DecodeFailure>()),
    onSome: ({ ast }) =>
      input.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.make<unknown, unknown, never>(ast))),
        Effect.match({
          onFailure: (error) =>
            ParseResult.isParseError(error) ? Option.some<DecodeFailure>({ part, error }) : Option.none(),
          onSuccess: () => Option.none()
        })
      )
  })

/** Multipart bodies are streamed to their handler, never decoded by the framework. */
const decodedPayload = (endpoint: Endpoint) =>
  Option.filter(
    endpoint.payloadSchema,
    ({ ast }) => HttpApiSchema.getMultipart(ast) === undefined && HttpApiSchema.getMultipartStream(ast) === undefined
  )

/**
 * The part of `request` that fails its endpoint's schema, first in the framework's order, or none (no
 * endpoint, or every part decodes). Query values are decoded as parsed: the framework also wraps the
 * values of keys that do not take a single string in a list, which changes nothing here since no query
 * parameter of the contract takes a list and an undeclared name fails whatever its value.
 */
export const failingPart = (
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<Option.Option<DecodeFailure>> =>
  Effect.gen(function* () {
    const found = findEndpoint(request.method, request.url)
    if (found === undefined) return Option.none()
    const endpoint = found.handler
    const query = Effect.succeed(found.searchParams)
    const attempts = [
      failureOf("path", endpoint.pathSchema, Effect.succeed(found.params)),
      failureOf(
        "body",
        decodedPayload(endpoint),
        HttpMethod.hasBody(request.method as HttpMethod.HttpMethod) ? request.json : query
      ),
      failureOf("headers", endpoint.headersSchema, Effect.succeed(request.headers)),
      failureOf("query", endpoint.urlParamsSchema, query)
    ]
    for (const attempt of attempts) {
      const failure = yield* attempt
      if (Option.isSome(failure)) return failure
    }
    return Option.none()
  })

const renderers: { readonly [Part in RequestPart]: (error: ParseResult.ParseError) => Rendered } = {
  path: (error) => ({
    status: 404,
    error: {
      code: "not_found",
      message: "no record has that id (ids are uuids)",
      details: PlainIssues.plainIssues(error)
    }
  }),
  body: (error) => ({
    status: 422,
    error: { code: "validation_failed", message: "the body is not valid", details: PlainIssues.plainIssues(error) }
  }),
  // The only header an endpoint decodes is the Idempotency-Key.
  headers: () => ({
    status: 422,
    error: {
      code: "idempotency_key_invalid",
      message: "send an Idempotency-Key header matching ^[A-Za-z0-9._:-]{8,120}$"
    }
  }),
  query: (error) => ({
    status: 422,
    error: {
      code: "validation_failed",
      message: "query parameters are not valid",
      details: PlainIssues.plainIssues(error, "query")
    }
  })
}

/** The spec's error answer to a request whose part fails its schema. */
export const renderDecodeFailure = (failure: DecodeFailure): Rendered => renderers[failure.part](failure.error)

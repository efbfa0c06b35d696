/**
 * Which part of a request a decode error of HttpApi is about. The framework's error keeps only formatted
 * issues, so the endpoint's own schemas decide: the request's endpoint is its route in the route table
 * (found as the router finds it), and its path, header and query schemas are tried on the request in the
 * order the framework decodes them.
 * The first that fails is the part, and its failing locations (found with bounded work) give the
 * details. A decode error that none of them reproduces did not come from the request. JSON bodies are
 * not among the parts: their handlers decode them once, with bounded work (`Writes.rawWrite`), so no
 * body is decoded here.
 */
import type { PlainIssues } from "@catalog-sync/core"
import { BoundedDecode } from "@catalog-sync/core/adapter-support"
import { Option, Result, type Schema } from "effect"
import type { HttpServerRequest } from "effect/http"
import { issueDetails, type Rendered } from "./ErrorResponses.js"
import type { Found } from "./RouteTable.js"

export type RequestPart = "path" | "headers" | "query"

export interface DecodeFailure {
  readonly part: RequestPart
  readonly issues: ReadonlyArray<PlainIssues.PlainIssue>
}

const roots: { readonly [Part in RequestPart]: string } = { path: "$", headers: "$", query: "query" }

const failureOf = (part: RequestPart, schema: Schema.Top | undefined, input: unknown): Option.Option<DecodeFailure> =>
  schema === undefined
    ? Option.none()
    : Result.match(
        // The contract's path, header and query schemas need no services to decode.
        BoundedDecode.boundedDecoder(schema as unknown as Schema.Codec<unknown, unknown>, "ignore")(input, roots[part]),
        {
          onFailure: (issues) => Option.some<DecodeFailure>({ part, issues }),
          onSuccess: () => Option.none()
        }
      )

/**
 * The part of `request` that fails the schema of its route's endpoint (`found`, RouteTable), first in the
 * framework's order, or none (no endpoint, or every part decodes). Query values are decoded as parsed: the framework also wraps the
 * values of keys that do not take a single string in a list, which changes nothing here since no query
 * parameter of the contract takes a list and an undeclared name fails whatever its value.
 */
export const failingPart = (
  request: HttpServerRequest.HttpServerRequest,
  found: Found | undefined
): Option.Option<DecodeFailure> => {
  if (found === undefined) return Option.none()
  const endpoint = found.route.endpoint
  return failureOf("path", endpoint.params, found.params).pipe(
    Option.orElse(() => failureOf("headers", endpoint.headers, request.headers)),
    Option.orElse(() => failureOf("query", endpoint.query, found.searchParams))
  )
}

const renderers: {
  readonly [Part in RequestPart]: (issues: ReadonlyArray<PlainIssues.PlainIssue>) => Rendered
} = {
  path: (issues) => ({
    status: 404,
    error: { code: "not_found", ...issueDetails("no record has that id (ids are uuids)", issues) }
  }),
  // The only header an endpoint decodes is the Idempotency-Key.
  headers: () => ({
    status: 422,
    error: {
      code: "idempotency_key_invalid",
      message: "send an Idempotency-Key header matching ^[A-Za-z0-9._:-]{8,120}$"
    }
  }),
  query: (issues) => ({
    status: 422,
    error: { code: "validation_failed", ...issueDetails("query parameters are not valid", issues) }
  })
}

/** The spec's error answer to a request whose part fails its schema. */
export const renderDecodeFailure = (failure: DecodeFailure): Rendered => renderers[failure.part](failure.issues)

/**
 * Post-processing of the generated OpenAPI document: the framework's own decode error is replaced by
 * ours, and repeated `$id`s of free-form schemas (which strict 3.1 validators refuse) are removed.
 * 413 and 415 stay on every operation: a body is checked wherever a client sends one.
 */
type Json = Record<string, any>

const stripIds = (node: unknown): void => {
  if (node === null || typeof node !== "object") return
  const record = node as Json
  if (typeof record.$id === "string" && record.$id.startsWith("/schemas/")) delete record.$id
  for (const value of Object.values(record)) stripIds(value)
}

export const documentOpenApi = (spec: Json): Json => {
  for (const item of Object.values<Json>(spec.paths ?? {})) {
    for (const operation of Object.values<Json>(item)) {
      const responses = operation.responses as Json | undefined
      if (responses === undefined) continue
      const bad = responses["400"] as Json | undefined
      if (bad?.content?.["application/json"] !== undefined) {
        bad.description =
          "Malformed JSON, a body nested too deep, naming too many different keys or cut off, a Host header that is not host[:port], or a request that is not valid HTTP."
        bad.content["application/json"].schema = { $ref: "#/components/schemas/BadRequest" }
      }
    }
  }
  for (const name of ["HttpApiDecodeError", "Issue", "PropertyKey"]) delete spec.components?.schemas?.[name]
  stripIds(spec)
  return spec
}

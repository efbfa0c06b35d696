import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"

/**
 * The Scalar API reference bundle (standalone, no network). Effect embeds it for its HttpApiScalar module
 * without exporting the string (nor the module: `effect/http-api/internal/*` is closed), so it is read
 * from that module's file beside `effect/http-api`: one string literal, which is valid JSON.
 */
export const scalarBundle = (): string => {
  const require = createRequire(import.meta.url)
  const entry = require.resolve("effect/http-api")
  const source = readFileSync(join(dirname(entry), "internal", "httpApiScalar.js"), "utf8")
  const literal = /export const javascript\s*=\s*("(?:[^"\\]|\\.)*")/.exec(source)?.[1]
  const bundle: unknown = literal === undefined ? undefined : JSON.parse(literal)
  if (typeof bundle !== "string")
    throw new Error("the Scalar bundle of effect/http-api was not found; check its version")
  return bundle
}

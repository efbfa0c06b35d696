import { Effect, Schema } from "effect"
import { matching } from "../internal/Shared/Text.js"
import { ValidationFailed } from "../Shared/Errors.js"

/**
 * Feed cursors are opaque to clients: a version prefix and a position in base 36. `c2_` carries a position
 * of the company's own sequence (its changes numbered 1, 2, 3...), so a cursor tells nothing about other
 * companies. `c1_`, what the API issued before, carries a position of the one sequence that numbered every
 * company's changes; such a cursor is still read (a client may have persisted one), through the log.
 */
export const encode = (position: number): string => `c2_${position.toString(36)}`

/** The position's base-36 digits in a cursor. */
const digits = "[0-9a-z]{1,12}"

/** A cursor's form, as a regular expression's source: the schema, the OpenAPI document and the envelope's fast feed poll share it. */
export const pattern = `c[12]_${digits}`
const parts = new RegExp(`^c([12])_(${digits})$`)

/** A cursor as a client sends it, checked for its form. */
export const ChangeCursorString = Schema.String.check(
  matching(new RegExp(`^${pattern}$`), "must be a cursor returned by this API (next_cursor or change_cursor)")
)

/** Where a cursor points: a position of the company's sequence, or one of the former global sequence (`c1_`). */
export interface Decoded {
  readonly position: number
  readonly global: boolean
}

/** The refusal of a cursor this API did not hand out (malformed, forged, or another company's). */
export const invalid = (path: string): ValidationFailed =>
  new ValidationFailed({
    message: "the cursor is not valid",
    issues: [{ path, message: "must be a cursor returned by this API (next_cursor or change_cursor)" }]
  })

/** Reads a cursor back; a forged or foreign one is a validation error, never a crash. */
export const decode = (cursor: string, path: string): Effect.Effect<Decoded, ValidationFailed> => {
  const match = parts.exec(cursor)
  const position = match === null ? Number.NaN : Number.parseInt(match[2]!, 36)
  return Number.isSafeInteger(position) && position >= 0
    ? Effect.succeed({ position, global: match![1] === "1" })
    : Effect.fail(invalid(path))
}

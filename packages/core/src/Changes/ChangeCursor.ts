import { Effect, Schema } from "effect"
import { ValidationFailed } from "../Shared/Errors.js"

/**
 * Feed cursors are opaque to clients: `c1_` and the position in base 36. The prefix versions the format
 * so that a later encoding can still read old cursors.
 */
export const encode = (position: number): string => `c1_${position.toString(36)}`

/** The position's base-36 digits in a cursor. */
const digits = "[0-9a-z]{1,12}"

/** A cursor's form, as a regular expression's source: the schema, the OpenAPI document and the envelope's fast feed poll share it. */
export const pattern = `c1_${digits}`
const positionOf = new RegExp(`^c1_(${digits})$`)

export const ChangeCursorString = Schema.String.pipe(
  Schema.pattern(new RegExp(`^${pattern}$`), {
    message: () => "must be a cursor returned by this API (next_cursor or change_cursor)"
  })
)

/** Reads a cursor back; a forged or foreign one is a validation error, never a crash. */
export const decode = (cursor: string, path: string) => {
  const match = positionOf.exec(cursor)
  const position = match === null ? Number.NaN : Number.parseInt(match[1]!, 36)
  return Number.isSafeInteger(position) && position >= 0
    ? Effect.succeed(position)
    : Effect.fail(
        new ValidationFailed({
          message: "the cursor is not valid",
          issues: [{ path, message: "must be a cursor returned by this API (next_cursor or change_cursor)" }]
        })
      )
}

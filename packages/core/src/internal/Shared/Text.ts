import { Schema } from "effect"

/**
 * A string matching `regExp`, failing with `message`, described in JSON Schema as Effect 3 described a
 * pattern (its `pattern`, and "a string matching the pattern …" unless the schema describes itself).
 * Effect 4 exports the pattern of a regular expression with the `u` flag only; these are ASCII patterns,
 * the same with it or without.
 */
export const matching = (regExp: RegExp, message: string) =>
  Schema.isPattern(regExp, {
    message,
    description: `a string matching the pattern ${regExp.source}`,
    toJsonSchema: () => ({ pattern: regExp.source })
  })

/** Length in characters (Unicode code points), as the spec and JSON Schema count it, not UTF-16 units. */
export const characters = (value: string): number => {
  let count = 0
  for (const _ of value) count++
  return count
}

/** Why text with U+0000 is refused, as its field's message says it. */
export const nulMessage = "must not contain the NUL character (U+0000)"

/**
 * A string of `min` to `max` characters of text that every storage engine holds as it is sent: well-formed
 * (no lone UTF-16 surrogate, which has no UTF-8 form) and without U+0000, which a PostgreSQL text value
 * cannot hold (SQLite can): refused alike on both engines, so that no value is accepted by one and not by
 * the other. Every text field, identifier, Reference and text filter of the API is one of these.
 */
export const Text = (min: number, max: number) => {
  const message = `${min > 0 ? `must be ${min}-${max} characters` : `must be at most ${max} characters`} of well-formed text`
  return Schema.String.check(
    Schema.makeFilter(
      (value: string) => {
        // Cheap bounds first: code points are at least half the UTF-16 length and at most all of it.
        if (value.length < min || value.length / 2 > max) return message
        if (value.includes("\u0000")) return nulMessage
        // A lone surrogate cannot be stored or sent back as UTF-8.
        if (!value.isWellFormed()) return message
        const n = characters(value)
        return (n >= min && n <= max) || message
      },
      {
        toJsonSchema: () => ({ ...(min > 0 ? { minLength: min } : {}), maxLength: max }),
        // Generated values (property tests) meet the bounds instead of being drawn and thrown away.
        arbitraryConstraint: { minCodePoints: min, maxCodePoints: max }
      }
    )
  )
}

/**
 * What a name may not hold: C0 and C1 control characters (line breaks, tabs, terminal escapes), the line
 * and paragraph separators, and the bidirectional embeddings, overrides and isolates, which reorder how the
 * text after them is shown (names are printed in lists, logs and terminals, where either can pass one
 * thing off as another). The marks U+200E and U+200F stay allowed: they reorder nothing beyond the
 * neutral characters next to them, and names mixing right-to-left and left-to-right text need them.
 */
const notInNames = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/

/** Why such a name is refused, as its field's message says it. */
export const nameMessage =
  "must not contain control characters, line breaks, or bidirectional overrides, embeddings or isolates"

/** The first character a name may not hold, as `U+000A`; undefined when there is none. */
export const refusedInName = (value: string): string | undefined => {
  const found = notInNames.exec(value)
  return found === null ? undefined : `U+${found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`
}

/** `Text` for a name: a single line of text shown as it reads (see `notInNames`). */
export const NameText = (min: number, max: number) =>
  Text(min, max).check(
    Schema.makeFilter((value: string) => !notInNames.test(value) || nameMessage, { toJsonSchema: () => ({}) })
  )

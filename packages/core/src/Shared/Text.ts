import { Schema } from "effect"

/** Length in characters (Unicode code points), as the spec and JSON Schema count it, not UTF-16 units. */
export const characters = (value: string): number => {
  let count = 0
  for (const _ of value) count++
  return count
}

/** A string of `min` to `max` characters. */
export const Text = (min: number, max: number) => {
  const message = `${min > 0 ? `must be ${min}-${max} characters` : `must be at most ${max} characters`} of well-formed text`
  return Schema.String.pipe(
    Schema.filter(
      (value) => {
        // Cheap bounds first: code points are at least half the UTF-16 length and at most all of it.
        if (value.length < min || value.length / 2 > max) return false
        // A lone surrogate cannot be stored or sent back as UTF-8.
        if (!(value as unknown as { isWellFormed: () => boolean }).isWellFormed()) return false
        const n = characters(value)
        return n >= min && n <= max
      },
      { message: () => message, jsonSchema: { ...(min > 0 ? { minLength: min } : {}), maxLength: max } }
    )
  )
}

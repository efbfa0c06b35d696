/**
 * The members of a JSON object's text as `JSON.stringify` writes it (no whitespace), found without parsing
 * it: strings are skipped with `indexOf`, so a document is read in about the time it takes to copy it.
 */

const quote = 0x22
const backslash = 0x5c
const comma = 0x2c
const colon = 0x3a
const openBrace = 0x7b
const closeBrace = 0x7d
const openBracket = 0x5b
const closeBracket = 0x5d

/** The index just past the string whose opening quote is at `start`, or -1. */
const stringEnd = (text: string, start: number): number => {
  let from = start + 1
  for (;;) {
    const end = text.indexOf('"', from)
    if (end < 0) return -1
    // A quote after an odd number of backslashes is escaped.
    let backslashes = 0
    while (text.charCodeAt(end - 1 - backslashes) === backslash) backslashes++
    if (backslashes % 2 === 0) return end + 1
    from = end + 1
  }
}

/** The index just past the value that starts at `start`, or -1. */
const valueEnd = (text: string, start: number): number => {
  const first = text.charCodeAt(start)
  if (first === quote) return stringEnd(text, start)
  if (first === openBrace || first === openBracket) {
    let depth = 0
    let at = start
    while (at < text.length) {
      const code = text.charCodeAt(at)
      if (code === quote) {
        at = stringEnd(text, at)
        if (at < 0) return -1
        continue
      }
      if (code === openBrace || code === openBracket) depth++
      else if (code === closeBrace || code === closeBracket) {
        depth--
        if (depth === 0) return at + 1
      }
      at++
    }
    return -1
  }
  // A number, true, false or null: up to what follows it.
  let at = start
  while (at < text.length) {
    const code = text.charCodeAt(at)
    if (code === comma || code === closeBrace || code === closeBracket) return at
    at++
  }
  return -1
}

/**
 * The members of the object `text` (JSON.stringify's output) without those named in `dropped`, joined
 * without braces: what `JSON.stringify` would write between the braces of the object without them.
 * Undefined when `text` is not such an object's text.
 */
export const membersWithout = (text: string, dropped: ReadonlySet<string>): string | undefined => {
  if (text.charCodeAt(0) !== openBrace || text.charCodeAt(text.length - 1) !== closeBrace) return undefined
  const last = text.length - 1
  let kept = ""
  let at = 1
  while (at < last) {
    if (text.charCodeAt(at) !== quote) return undefined
    const keyEnd = stringEnd(text, at)
    if (keyEnd < 0 || text.charCodeAt(keyEnd) !== colon) return undefined
    const end = valueEnd(text, keyEnd + 1)
    if (end < 0) return undefined
    const rawKey = text.slice(at + 1, keyEnd - 1)
    const key = rawKey.includes("\\") ? (JSON.parse(`"${rawKey}"`) as string) : rawKey
    if (!dropped.has(key)) kept = kept === "" ? text.slice(at, end) : `${kept},${text.slice(at, end)}`
    if (end === last) return kept
    if (text.charCodeAt(end) !== comma) return undefined
    at = end + 1
  }
  return at === 1 ? kept : undefined
}

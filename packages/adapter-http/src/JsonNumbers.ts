/**
 * JSON number literals that `JSON.parse` cannot hold: one that overflows to Infinity, one beyond
 * ±(2^53 - 1) (9007199254740993 parses to ...992, so the value stored is not the value sent), and a
 * non-zero one that underflows to 0 (`0.000…1`). Each would be stored silently rewritten, so a body
 * holding one is refused at its path.
 */

/** One failing location, as `Errors.ValidationFailed` lists them. */
export interface NumberIssue {
  readonly path: string
  readonly message: string
}

const beyond = `must be between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}: larger numbers are not held exactly`
const underflows = "is too small to be held: it would be read as 0"

/** Why the number literal `token` is refused, if it is. */
const numberProblem = (token: string): string | undefined => {
  const value = Number(token)
  if (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER) return beyond
  if (value === 0) {
    const exponent = token.search(/[eE]/)
    if (/[1-9]/.test(exponent < 0 ? token : token.slice(0, exponent))) return underflows
  }
  return undefined
}

/** Longest key a path names in full, as core's paths (a key is the client's and may be long). */
const maxKeyLength = 100

const keyOf = (text: string, start: number, end: number) => {
  let name: string
  try {
    name = JSON.parse(text.slice(start, end)) as string
  } catch {
    name = text.slice(start + 1, end - 1)
  }
  if (name.length <= maxKeyLength) return name
  const cut = /[\uD800-\uDBFF]/.test(name[maxKeyLength - 1]!) ? maxKeyLength - 1 : maxKeyLength
  return `${name.slice(0, cut)}…`
}

/**
 * The paths of the number literals of `text` (JSON that `JSON.parse` accepted) that it cannot hold
 * exactly, at most `limit` of them. One pass over the text: the path is kept as positions (the open
 * containers, their current key's bounds or item index) and spelt out only for a refused number, and a
 * literal is converted only when it is long enough to be out of range (16 characters) or has an exponent:
 * 15 digits always fit, and no shorter literal underflows.
 */
export const inexactNumbers = (text: string, limit: number): ReadonlyArray<NumberIssue> => {
  const issues: Array<NumberIssue> = []
  // Per open container: object (1) or array (0), its current key's bounds or item index.
  const isObject: Array<number> = []
  const keyStart: Array<number> = []
  const keyEnd: Array<number> = []
  const index: Array<number> = []
  let depth = -1
  let expectKey = false
  const pathAt = () => {
    let path = "$"
    for (let d = 0; d <= depth; d++)
      path += isObject[d] === 1 ? `.${keyOf(text, keyStart[d]!, keyEnd[d]!)}` : `[${index[d]}]`
    return path
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // The closing quote: the next one not escaped, found natively (strings are most of a body).
      const start = i
      for (;;) {
        i = text.indexOf('"', i + 1)
        if (i < 0) return issues
        let backslashes = 0
        while (text.charCodeAt(i - 1 - backslashes) === 0x5c) backslashes++
        if (backslashes % 2 === 0) break
      }
      if (expectKey) {
        keyStart[depth] = start
        keyEnd[depth] = i + 1
        expectKey = false
      }
    } else if (c === 0x7b || c === 0x5b) {
      depth++
      isObject[depth] = c === 0x7b ? 1 : 0
      index[depth] = 0
      expectKey = c === 0x7b
    } else if (c === 0x7d || c === 0x5d) depth--
    else if (c === 0x2c) {
      if (isObject[depth] === 1) expectKey = true
      else index[depth]!++
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const start = i
      let next = text.charCodeAt(i + 1)
      while ((next >= 0x30 && next <= 0x39) || next === 0x2e) next = text.charCodeAt(++i + 1)
      const exponent = next === 0x65 || next === 0x45
      if (exponent) {
        next = text.charCodeAt(++i + 1)
        while ((next >= 0x30 && next <= 0x39) || next === 0x2b || next === 0x2d) next = text.charCodeAt(++i + 1)
      } else if (i + 1 - start < 16) continue
      const problem = numberProblem(text.slice(start, i + 1))
      if (problem !== undefined) {
        issues.push({ path: pathAt(), message: problem })
        if (issues.length >= limit) return issues
      }
    }
  }
  return issues
}

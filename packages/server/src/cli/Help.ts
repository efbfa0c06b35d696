/**
 * The help the CLI library prints, made to read cleanly: without the library's own flags (--completions,
 * --log-level, --wizard: they work, but are no part of this CLI's commands), and with each listed flag,
 * argument or command on a line of its own with its description under it, instead of columns padded to
 * the longest name.
 */

// biome-ignore lint: ANSI escapes are what is being matched
const ansi = /\u001b\[[0-9;]*m/g

/** Text without its ANSI styles. */
export const plain = (text: string): string => text.replace(ansi, "")

/** `  --days number<padding>the key's lifetime...` */
const listed = /^ {2}(\S(?:.*?\S)?) {2,}(\S.*)$/

/**
 * `  sign-out-everywhere end every...`: a command's name is one word, and the library pads a name as long
 * as its column with one space only.
 */
const listedCommand = /^ {2}(\S+) +(\S.*)$/

/** The section of the library's own flags. */
const builtIns = "GLOBAL FLAGS"

/**
 * The help text for `catalog-sync <words> --help`; `color` keeps the library's ANSI styles (a terminal),
 * otherwise they are removed (a pipe, a file).
 */
export const clean = (text: string, color: boolean): string => {
  const lines = (color ? text : plain(text)).split("\n")
  const out: Array<string> = []
  let skipping = false
  let section = ""
  for (const line of lines) {
    const bare = plain(line)
    if (/^[A-Z][A-Z ]*$/.test(bare)) section = bare
    if (bare === builtIns) {
      skipping = true
      continue
    }
    if (skipping) {
      // The section ends at its blank line, which goes with it.
      if (bare.trim() === "") skipping = false
      continue
    }
    const entry = (section === "SUBCOMMANDS" ? listedCommand : listed).exec(bare)
    if (entry !== null) {
      out.push(`  ${entry[1]}`, `      ${entry[2]}`)
      continue
    }
    out.push(line)
  }
  return out.join("\n")
}

/**
 * The help @effect/cli prints, made to read cleanly. The library renders every option and argument as its
 * value type followed by the descriptions given to it, and the value type of a text option is the
 * placeholder "A user-defined piece of text." (`Options.withDescription` adds a paragraph after it; there
 * is no way to replace it). It also names only the last word of a subcommand in its usage, and pads every
 * line of a command list to the longest usage. `clean` drops the placeholder, writes the whole command in
 * the usage, and puts each listed command's description under it.
 */

const placeholders: ReadonlySet<string> = new Set([
  "A user-defined piece of text.",
  "A user-defined piece of text that is confidential."
])

// biome-ignore lint: ANSI escapes are what is being matched
const ansi = /\u001b\[[0-9;]*m/g

/** Text without its ANSI styles. */
export const plain = (text: string): string => text.replace(ansi, "")

/** `  - key create --connection uuid ...<padding>create a key...` */
const listed = /^ {2}- (\S(?:.*?\S)?) {2,}(\S.*)$/

/**
 * The help text for `catalog-sync <words> --help`; `color` keeps the library's ANSI styles (a terminal),
 * otherwise they are removed (a pipe, a file).
 */
export const clean = (text: string, words: ReadonlyArray<string>, color: boolean): string => {
  const lines = (color ? text : plain(text)).split("\n")
  const out: Array<string> = []
  const last = words.at(-1)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const bare = plain(line)
    if (placeholders.has(bare.trim())) {
      // The paragraph and the blank line after it.
      if (plain(lines[i + 1] ?? "x") === "") i++
      continue
    }
    if (last !== undefined && (bare === `$ ${last}` || bare.startsWith(`$ ${last} `))) {
      out.push(`$ ${["catalog-sync", ...words].join(" ")}${bare.slice(2 + last.length)}`)
      continue
    }
    const entry = listed.exec(bare)
    if (entry !== null) {
      out.push(`  - ${entry[1]}`, `      ${entry[2]}`)
      continue
    }
    out.push(line)
  }
  return out.join("\n")
}

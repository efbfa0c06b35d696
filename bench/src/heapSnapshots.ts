import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"

/** Bytes and count of the heap objects of one kind (constructor, or node type for strings, code, ...). */
export interface HeapGroup {
  readonly bytes: number
  readonly count: number
}

/** The live heap of a V8 `.heapsnapshot` by constructor name: its total and the shallow size of each kind. */
export const summarize = (file: string): { readonly total: number; readonly groups: Map<string, HeapGroup> } => {
  const snapshot = JSON.parse(readFileSync(file, "utf8")) as {
    snapshot: { meta: { node_fields: Array<string>; node_types: [Array<string>] } }
    nodes: Array<number>
    strings: Array<string>
  }
  const fields = snapshot.snapshot.meta.node_fields
  const types = snapshot.snapshot.meta.node_types[0]
  const [typeAt, nameAt, sizeAt] = ["type", "name", "self_size"].map((f) => fields.indexOf(f)) as [
    number,
    number,
    number
  ]
  const groups = new Map<string, HeapGroup>()
  let total = 0
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
    const type = types[snapshot.nodes[i + typeAt]!]!
    const size = snapshot.nodes[i + sizeAt]!
    // Objects by constructor; strings, code, arrays and the rest by their node type.
    const key =
      type === "object" || type === "closure" ? `${type} ${snapshot.strings[snapshot.nodes[i + nameAt]!]}` : type
    const group = groups.get(key) ?? { bytes: 0, count: 0 }
    groups.set(key, { bytes: group.bytes + size, count: group.count + 1 })
    total += size
  }
  return { total, groups }
}

/** The `.heapsnapshot` files of a folder, oldest first. */
export const snapshotsIn = (dir: string): Array<string> =>
  readdirSync(dir)
    .filter((name) => name.endsWith(".heapsnapshot"))
    .map((name) => join(dir, name))
    .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs)

/** The kinds that grew most from `before` to `after`, as `name +bytes (+count)` lines. */
export const grewMost = (
  before: ReturnType<typeof summarize>,
  after: ReturnType<typeof summarize>,
  top = 12
): Array<string> =>
  Array.from(after.groups)
    .map(([key, group]) => {
      const was = before.groups.get(key) ?? { bytes: 0, count: 0 }
      return { key, bytes: group.bytes - was.bytes, count: group.count - was.count }
    })
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, top)
    .map(
      (g) =>
        `${g.key} ${g.bytes >= 0 ? "+" : ""}${(g.bytes / 1024).toFixed(0)} KB (${g.count >= 0 ? "+" : ""}${g.count})`
    )

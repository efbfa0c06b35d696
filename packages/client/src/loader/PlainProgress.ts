/**
 * Progress as plain lines, for logs and terminals without a TTY: nothing for a resource the load has not
 * started sending, one line when it starts, at most one line every `everyMs` while it moves, and one line
 * when it is done. A resource that starts and finishes between two snapshots gets only the last.
 */
import { plainLine, type ResourceProgress, type Snapshot } from "./Progress.js"

/** Settings of the plain-text progress lines. */
export interface PlainProgressOptions {
  /** The least time between two lines of one resource under way (default 10 s). */
  readonly everyMs?: number
}

const records = (n: number) => `${n} ${n === 1 ? "record" : "records"}`

const startLine = (p: ResourceProgress) =>
  p.done === 0 ? `${p.resource}: started (${records(p.total)})` : `${p.resource}: started, ${p.done}/${p.total} done`

const doneLine = (p: ResourceProgress) =>
  `${p.resource}: done, ${p.done}/${p.total}: ${p.created} created, ${p.updated} updated, ${p.unchanged} unchanged, ${p.failed} failed`

/** A renderer that keeps what it has shown: call it with each snapshot, print the lines it returns. */
export const plainProgress = (options: PlainProgressOptions = {}) => {
  const everyMs = options.everyMs ?? 10_000
  const shown = new Map<string, { readonly at: number; readonly done: number; readonly finished: boolean }>()
  return (snapshot: Snapshot): Array<string> => {
    const lines: Array<string> = []
    for (const p of snapshot.resources) {
      const last = shown.get(p.resource)
      if (!p.started || last?.finished === true) continue
      const finished = p.done >= p.total
      const line = finished
        ? doneLine(p)
        : last === undefined
          ? startLine(p)
          : p.done !== last.done && snapshot.elapsedMs - last.at >= everyMs
            ? plainLine(p)
            : undefined
      if (line === undefined) continue
      lines.push(line)
      shown.set(p.resource, { at: snapshot.elapsedMs, done: p.done, finished })
    }
    return lines
  }
}

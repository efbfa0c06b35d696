/**
 * The state file of a load: an append-only log of JSON lines, one per event, written before the load
 * moves on. A crash can at most cut the last line, which reading skips; replaying the log tells which
 * batches were accepted as which job, which are done, and which records failed.
 */
import { Effect } from "effect"
import { appendFileSync, existsSync, readFileSync, statSync } from "node:fs"

/** A failed record as the report file lists it. */
export interface Failure {
  /** The input file and line (a CSV row's first line; 0 for an image found in a folder). */
  readonly file: string
  readonly line: number
  readonly resource: string | undefined
  readonly external_id: string | undefined
  /** Where in the record (`$.category_ids[0]`), when the error says. */
  readonly path: string | null
  readonly code: string
  readonly message: string
  readonly details?: unknown
}

export interface Counts {
  readonly created: number
  readonly updated: number
  readonly unchanged: number
  readonly failed: number
}

/** Where a load writes to: a state file belongs to one server and connection. */
export interface Target {
  readonly url: string
  readonly connection_id: string
}

/** The input files a load started from, to tell a resumed run that they changed meanwhile. */
export interface InputFingerprint {
  readonly path: string
  readonly size: number
  readonly mtimeMs: number
}

export type Event =
  | { readonly e: "start"; readonly v: 1; readonly target: Target; readonly inputs: ReadonlyArray<InputFingerprint> }
  /** A batch (or image) was accepted as a job. */
  | { readonly e: "sent"; readonly key: string; readonly job: string }
  | {
      readonly e: "done"
      readonly key: string
      /** The round (0: the load, n: the n-th retry) the batch belongs to. */
      readonly round: number
      /** Records settled, per resource (a batch of small tiers holds several). */
      readonly counts: Readonly<Record<string, Counts>>
    }
  | ({ readonly e: "fail"; readonly id: string } & Failure)
  /** A failure that a later retry applied. */
  | { readonly e: "ok"; readonly id: string }
  /** Round 0 is the load itself; a retry round re-sends the failures listed in `ids`. */
  | { readonly e: "retry"; readonly round: number; readonly ids: ReadonlyArray<string> }
  | { readonly e: "finished"; readonly round: number }

export type Done = Extract<Event, { e: "done" }>

/** What the log says, replayed. */
export interface State {
  readonly target: Target | undefined
  readonly inputs: ReadonlyArray<InputFingerprint> | undefined
  readonly sent: Map<string, string>
  readonly done: Map<string, Done>
  readonly failures: Map<string, Failure>
  readonly rounds: Map<number, ReadonlyArray<string>>
  readonly finished: Set<number>
}

export const empty = (): State => ({
  target: undefined,
  inputs: undefined,
  sent: new Map(),
  done: new Map(),
  failures: new Map(),
  rounds: new Map(),
  finished: new Set()
})

/** The identity of a failed record across runs: its resource and external_id, else its line. */
export const failureId = (failure: Pick<Failure, "file" | "line" | "resource" | "external_id">): string =>
  failure.external_id === undefined || failure.resource === undefined
    ? `${failure.file}\u0000line\u0000${failure.line}`
    : `${failure.file}\u0000${failure.resource}\u0000${failure.external_id}`

export const apply = (state: State, event: Event): void => {
  switch (event.e) {
    case "start":
      Object.assign(state, { target: event.target, inputs: event.inputs })
      break
    case "sent":
      state.sent.set(event.key, event.job)
      break
    case "done":
      state.done.set(event.key, event)
      break
    case "fail": {
      const { e: _e, id, ...failure } = event
      state.failures.set(id, failure)
      break
    }
    case "ok":
      state.failures.delete(event.id)
      break
    case "retry":
      state.rounds.set(event.round, event.ids)
      break
    case "finished":
      state.finished.add(event.round)
      break
  }
}

/** Replays a state file; a line a crash cut short (the last) is skipped and closed. Undefined when there is none. */
export const read = (path: string): Effect.Effect<State | undefined> =>
  Effect.sync(() => {
    if (!existsSync(path)) return undefined
    const state = empty()
    const text = readFileSync(path, "utf8")
    // A line cut short must not swallow the next event appended after it.
    if (text !== "" && !text.endsWith("\n")) appendFileSync(path, "\n")
    for (const line of text.split("\n")) {
      if (line === "") continue
      let event: Event
      try {
        event = JSON.parse(line) as Event
      } catch {
        continue
      }
      apply(state, event)
    }
    return state
  })

/** Appends events to the log (synchronously, so that the line is written before the load moves on) and to the state. */
export const writer =
  (path: string, state: State) =>
  (...events: ReadonlyArray<Event>): Effect.Effect<void> =>
    Effect.sync(() => {
      if (events.length === 0) return
      appendFileSync(path, events.map((event) => `${JSON.stringify(event)}\n`).join(""))
      for (const event of events) apply(state, event)
    })

/** Size and modification time of each input file. */
export const fingerprint = (paths: ReadonlyArray<string>): Array<InputFingerprint> =>
  paths.map((path) => {
    const info = statSync(path)
    return { path, size: info.size, mtimeMs: Math.round(info.mtimeMs) }
  })

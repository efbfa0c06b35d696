/**
 * Which run this is, from the state file: a new load, a resumed one (the same input, the same server and
 * connection), a round of `--retry-failed`, or a load that has already finished (nothing to send).
 */
import { Effect } from "effect"
import { LoadError } from "./LoadError.js"
import type { Source } from "./Sources.js"
import * as State from "./State.js"

export type Log = (...events: ReadonlyArray<State.Event>) => Effect.Effect<void>

export interface Resumed {
  readonly state: State.State
  /** Writes events to the state file first (a dry run keeps them in memory only). */
  readonly log: Log
  /** 0 for the load itself, n for the n-th retry round. */
  readonly round: number
  /** The run finished before: nothing is sent, the summary says so. */
  readonly finished: boolean
  /** A retry round: the failures it re-sends; undefined: every record. */
  readonly selected: ReadonlySet<string> | undefined
}

export const resume = (options: {
  readonly statePath: string | undefined
  readonly target: State.Target
  readonly input: ReadonlyArray<Source>
  readonly dryRun: boolean
  readonly retryFailed: boolean
}): Effect.Effect<Resumed, LoadError> =>
  Effect.gen(function* () {
    const { statePath, target } = options
    const state = statePath === undefined ? State.empty() : ((yield* State.read(statePath)) ?? State.empty())
    const log: Log =
      statePath === undefined
        ? (...events) => Effect.sync(() => events.forEach((event) => State.apply(state, event)))
        : State.writer(statePath, state)
    const run = (round: number, selected?: ReadonlySet<string>): Resumed => ({
      state,
      log,
      round,
      finished: false,
      selected
    })

    if (state.target !== undefined && JSON.stringify(state.target) !== JSON.stringify(target)) {
      return yield* new LoadError({
        message: `${statePath} is the state of a load into ${state.target.url}, connection ${state.target.connection_id}; give this load its own --state file`
      })
    }

    if (options.retryFailed) {
      if (!state.finished.has(0))
        return yield* new LoadError({
          message: `no finished load in ${statePath}: --retry-failed re-sends the failures of a finished load`
        })
      const open = Array.from(state.rounds.keys()).filter((r) => !state.finished.has(r))
      const round = open[0] ?? Math.max(0, ...state.rounds.keys()) + 1
      if (open.length === 0) {
        if (state.failures.size === 0) return { ...run(round - 1), finished: true }
        yield* log({ e: "retry", round, ids: Array.from(state.failures.keys()) })
      }
      return run(round, new Set(state.rounds.get(round)))
    }
    if (state.finished.has(0)) return { ...run(0), finished: true }
    if (!options.dryRun) {
      const now = State.fingerprint(options.input.map((s) => s.path))
      if (state.inputs === undefined) yield* log({ e: "start", v: 1, target, inputs: now })
      else if (JSON.stringify(state.inputs) !== JSON.stringify(now)) {
        return yield* new LoadError({
          message: `the input changed since this load started (${statePath}); finish it with the same input, or remove the state file to start over`
        })
      }
    }
    return run(0)
  })

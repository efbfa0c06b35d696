import { Effect } from "effect"

/** Longest stretch of work between two turns of the event loop. */
const sliceMillis = 10

let lastTurn = performance.now()

// `Effect.yieldNow` lets other fibers run but not the event loop (a microtask): a request that arrived
// meanwhile waits for its socket to be read. A macrotask lets the loop take I/O first.
const nextTurn = (resume: () => void) => {
  if (typeof setImmediate === "function") setImmediate(resume)
  else setTimeout(resume, 0)
}

/**
 * Lets the event loop serve other clients when work has run for `sliceMillis` without a turn of it: long
 * work (an import's records) steps aside between units, so no request waits on it for longer than a slice.
 * Real time, not the Effect clock: it measures the loop's stretch, which a test clock does not move.
 */
export const breathe: Effect.Effect<void> = Effect.suspend(() =>
  performance.now() - lastTurn < sliceMillis
    ? Effect.void
    : Effect.callback<void>((resume) => {
        nextTurn(() => {
          lastTurn = performance.now()
          resume(Effect.void)
        })
      })
)

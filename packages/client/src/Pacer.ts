/**
 * Even request pacing from the RateLimit headers, for programs that send steadily for minutes (the bulk
 * loader). The discipline's own pacing lets a burst through until few requests remain, which is right for
 * an interactive connector but lets concurrent requests overrun the window; a pacer instead spaces every
 * request of a key over the window, so that a steady sender never meets 429.
 */
import { Deferred, Duration, Effect, Queue, Ref, Schedule, type Scope } from "effect"

/** The rate state of the latest response (RateLimit-Limit, -Remaining, -Reset). */
export interface RateObservation {
  readonly limit: number
  readonly remaining: number
  readonly resetSeconds: number
}

/** Grants the right to send one request, and learns from the headers of each response. */
export interface Pacer {
  readonly take: Effect.Effect<void>
  readonly observe: (observation: RateObservation, nowMillis: number) => Effect.Effect<void>
  /** Told the status of every answer (with or without RateLimit headers), e.g. to count 429s. */
  readonly answered?: (status: number) => Effect.Effect<void>
}

/** Settings of the pacer, which keeps a client within the rate limit. */
export interface PacerOptions {
  /** Requests per window assumed until a response tells the limit (spec: 120 per key per minute). */
  readonly limit?: number
  readonly window?: Duration.Input
  /** How many times the observed limit this pacer may send (5 for the company-wide limit of a key's headers). */
  readonly limitFactor?: number
  /** Requests kept in hand below the limit, for timer jitter and requests in flight. */
  readonly margin?: number
}

/**
 * The spacing that spends what is left of the window evenly: never faster than the limit allows over a
 * whole window, slower when others already used part of it, and a wait for the reset when nothing is left.
 */
export const spacing = (options: {
  readonly limit: number
  readonly windowMillis: number
  readonly margin: number
  readonly remaining?: number
  readonly millisToReset?: number
}): number => {
  const steady = options.windowMillis / Math.max(1, options.limit - options.margin)
  if (options.remaining === undefined || options.millisToReset === undefined || options.millisToReset <= 0)
    return steady
  const usable = options.remaining - options.margin
  const rest = usable <= 0 ? options.millisToReset : options.millisToReset / (usable + 1)
  return Math.max(steady, rest)
}

/**
 * A pacer driven by a Schedule: a fiber grants waiting requests one at a time, then waits the current
 * spacing before the next grant. Nothing is granted ahead of demand, so an idle spell saves up no burst;
 * when the window is spent, the next grant waits for its reset. Lives in the scope.
 */
export const make = (options: PacerOptions = {}): Effect.Effect<Pacer, never, Scope.Scope> =>
  Effect.gen(function* () {
    const windowMillis = Duration.toMillis(Duration.fromInputUnsafe(options.window ?? "1 minute"))
    const factor = options.limitFactor ?? 1
    const margin = options.margin ?? 2
    // The headers carry the tighter of the key's and the company's state; the key's limit is the lower one.
    const state = yield* Ref.make({
      keyLimit: undefined as number | undefined,
      remaining: undefined as number | undefined,
      resetAt: 0,
      observedAt: 0
    })
    const waiting = yield* Queue.unbounded<Deferred.Deferred<void>>()
    const now = Effect.clockWith((clock) => clock.currentTimeMillis)
    const delay = Effect.map(Effect.zip(Ref.get(state), now), ([s, at]) =>
      Duration.millis(
        spacing({
          limit: (s.keyLimit ?? options.limit ?? 120) * factor,
          windowMillis,
          margin: margin * factor,
          ...(s.remaining === undefined || factor !== 1
            ? {}
            : { remaining: s.remaining, millisToReset: s.resetAt - at })
        })
      )
    )
    // With the window spent, nothing goes before its reset (the spacing alone was computed before the answer came).
    const untilReset = Effect.flatMap(Effect.zip(Ref.get(state), now), ([s, at]) =>
      factor === 1 && s.remaining !== undefined && s.remaining - margin <= 0 && s.resetAt > at
        ? Effect.sleep(Duration.millis(s.resetAt - at))
        : Effect.void
    )
    const grant = Queue.take(waiting).pipe(
      Effect.tap(() => untilReset),
      Effect.flatMap((deferred) => Deferred.succeed(deferred, undefined))
    )
    yield* grant.pipe(Effect.repeat(Schedule.forever.pipe(Schedule.addDelay(() => delay))), Effect.forkScoped)
    return {
      take: Effect.flatMap(Deferred.make<void>(), (deferred) =>
        Effect.andThen(Queue.offer(waiting, deferred), Deferred.await(deferred))
      ),
      observe: (observation, nowMillis) =>
        Ref.update(state, (s) => {
          const keyLimit = Math.max(1, Math.min(s.keyLimit ?? observation.limit, observation.limit))
          // Only the key's own state says what this key may still send; a later answer may arrive first.
          if (observation.limit !== keyLimit || nowMillis < s.observedAt) return { ...s, keyLimit }
          return {
            keyLimit,
            remaining: observation.remaining,
            resetAt: nowMillis + observation.resetSeconds * 1000,
            observedAt: nowMillis
          }
        })
    }
  })

/** Both pacers must grant a request (a key's own and one shared by every key of the company); both observe. */
export const both = (first: Pacer, second: Pacer): Pacer => ({
  take: Effect.andThen(first.take, second.take),
  observe: (observation, nowMillis) =>
    Effect.andThen(first.observe(observation, nowMillis), second.observe(observation, nowMillis))
})

/**
 * What the spec asks of every client, applied once below the typed client so that no endpoint can
 * forget it: credentials and User-Agent, retries of transient failures with bounded exponential backoff
 * and jitter (honouring Retry-After), and pacing from the RateLimit headers. A retry re-sends the very
 * same request, so a write keeps its Idempotency-Key on every retry.
 */
import { Clock, Context, Duration, Effect, Random, Ref } from "effect"
import { HttpClient, type HttpClientError, HttpClientRequest, HttpClientResponse } from "effect/http"
import type { Pacer } from "./Pacer.js"

/** Retry policy; the defaults suit an interactive connector. */
export interface RetryOptions {
  /** Attempts in all, the first included (default 5). */
  readonly maxAttempts?: number
  /** First backoff (default 250 ms); doubles on each retry. */
  readonly baseDelay?: Duration.Input
  /** Upper bound of one backoff (default 10 s). */
  readonly maxDelay?: Duration.Input
  /** Upper bound of a server-requested Retry-After wait (default 120 s). */
  readonly maxRetryAfter?: Duration.Input
}

/** The key, the User-Agent, and the retry and pacing of a client's requests. */
export interface DisciplineOptions {
  readonly apiKey: string
  /** `<APP_NAME>/<VERSION>` is sent as User-Agent (spec section 5). */
  readonly appName: string
  readonly appVersion: string
  readonly retry?: RetryOptions
  /**
   * When fewer than this many requests remain in the rate window, requests are spread over what is
   * left of it instead of running into 429 (default 5; 0 turns pacing off).
   */
  readonly paceBelow?: number
  /**
   * Spaces every request (retries included) evenly over the rate window and learns from each response's
   * RateLimit headers (see Pacer.ts); for steady senders such as the bulk loader.
   */
  readonly pacer?: Pacer
}

/** What happened to one call on the wire, so a failure can be told apart: never sent, or answered with what. */
export interface CallTrace {
  sent: boolean
  status?: number
  contentType?: string
}

/** The trace of the current call; the client provides a fresh one around each call. */
export const currentCall: Context.Reference<CallTrace | undefined> = Context.Reference<CallTrace | undefined>(
  "@catalog-sync/client/Discipline/currentCall",
  { defaultValue: () => undefined }
)

/** Statuses that are worth repeating: the spec says to retry them with the same Idempotency-Key. */
export const retryableStatuses: ReadonlySet<number> = new Set([429, 500, 503])

/**
 * Whether to repeat the request, with the response to hand on otherwise. A 409 is final, except
 * `idempotency_in_progress`: the first request with this key is still running (or was cut off by a crash
 * and holds the key until its lease ends), and the same request later gets its outcome. Telling them apart
 * reads the body, so a final 409 is handed on rebuilt from the bytes read.
 */
const classify = (
  response: HttpClientResponse.HttpClientResponse
): Effect.Effect<{ readonly retry: boolean; readonly response: HttpClientResponse.HttpClientResponse }> => {
  if (retryableStatuses.has(response.status)) return Effect.succeed({ retry: true, response })
  if (response.status !== 409) return Effect.succeed({ retry: false, response })
  return response.text.pipe(
    Effect.map((text) => {
      let code: unknown
      try {
        code = (JSON.parse(text) as { error?: { code?: unknown } } | null)?.error?.code
      } catch {
        code = undefined
      }
      const rebuilt = HttpClientResponse.fromWeb(
        response.request,
        new Response(text, { status: response.status, headers: response.headers as Record<string, string> })
      )
      return { retry: code === "idempotency_in_progress", response: rebuilt }
    }),
    Effect.orElseSucceed(() => ({ retry: false, response }))
  )
}

interface RateWindow {
  readonly remaining: number
  readonly resetAt: number
}

const parseSeconds = (value: string | undefined): number | undefined => {
  if (value === undefined) return undefined
  const n = Number(value)
  return Number.isFinite(n) && n >= 0 ? n : undefined
}

/** The backoff before retry number `retry` (1-based): exponential, capped, with "equal jitter". */
export const backoff = (retry: number, base: Duration.Duration, max: Duration.Duration) =>
  Effect.map(Random.next, (r) => {
    const cap = Math.min(Duration.toMillis(max), Duration.toMillis(base) * 2 ** (retry - 1))
    return Duration.millis(cap / 2 + (r * cap) / 2)
  })

/** Wraps an HttpClient with the spec's client discipline. */
export const discipline = (options: DisciplineOptions) => {
  const maxAttempts = Math.max(1, options.retry?.maxAttempts ?? 5)
  const base = Duration.fromInputUnsafe(options.retry?.baseDelay ?? "250 millis")
  const max = Duration.fromInputUnsafe(options.retry?.maxDelay ?? "10 seconds")
  const maxRetryAfter = Duration.fromInputUnsafe(options.retry?.maxRetryAfter ?? "120 seconds")
  const paceBelow = options.paceBelow ?? 5
  const userAgent = `${options.appName}/${options.appVersion}`
  // Shared by every request of the client: the key's budget is per key, not per call.
  const window = Ref.makeUnsafe<RateWindow | undefined>(undefined)

  const pace = Effect.gen(function* () {
    if (paceBelow <= 0) return
    const state = yield* Ref.get(window)
    if (state === undefined || state.remaining >= paceBelow) return
    const now = yield* Clock.currentTimeMillis
    const left = state.resetAt - now
    if (left <= 0) return
    // Spread the remaining budget over the rest of the window; with nothing left, wait for the reset.
    const wait = state.remaining <= 0 ? left : left / (state.remaining + 1)
    yield* Ref.set(window, { ...state, remaining: state.remaining - 1 })
    yield* Effect.sleep(Duration.millis(wait))
  })

  const observe = (response: HttpClientResponse.HttpClientResponse) =>
    Effect.gen(function* () {
      const trace = yield* currentCall
      if (trace !== undefined) {
        trace.status = response.status
        const contentType = response.headers["content-type"]
        if (contentType !== undefined) trace.contentType = contentType
      }
      if (options.pacer?.answered !== undefined) yield* options.pacer.answered(response.status)
      const remaining = parseSeconds(response.headers["ratelimit-remaining"])
      const reset = parseSeconds(response.headers["ratelimit-reset"])
      if (remaining === undefined || reset === undefined) return
      const now = yield* Clock.currentTimeMillis
      yield* Ref.set(window, { remaining, resetAt: now + reset * 1000 })
      const limit = parseSeconds(response.headers["ratelimit-limit"])
      if (options.pacer !== undefined && limit !== undefined)
        yield* options.pacer.observe({ limit, remaining, resetSeconds: reset }, now)
    })

  return (client: HttpClient.HttpClient): HttpClient.HttpClient =>
    client.pipe(
      HttpClient.mapRequest((request) =>
        request.pipe(
          HttpClientRequest.bearerToken(options.apiKey),
          HttpClientRequest.setHeader("user-agent", userAgent)
        )
      ),
      HttpClient.transform((send, request) => {
        const attempt = (
          n: number
        ): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> =>
          pace.pipe(
            Effect.andThen(options.pacer?.take ?? Effect.void),
            Effect.andThen(currentCall),
            Effect.tap((trace) =>
              Effect.sync(() => {
                if (trace !== undefined) trace.sent = true
              })
            ),
            Effect.andThen(Effect.result(send)),
            Effect.flatMap((result) => {
              if (result._tag === "Failure") {
                // Only transport failures are transient; a request we could not even build is not.
                if (result.failure.reason._tag !== "TransportError" || n >= maxAttempts)
                  return Effect.fail(result.failure)
                return Effect.flatMap(backoff(n, base, max), (delay) =>
                  Effect.andThen(Effect.sleep(delay), attempt(n + 1))
                )
              }
              const response = result.success
              return Effect.andThen(
                observe(response),
                Effect.flatMap(classify(response), (checked) => {
                  if (!checked.retry || n >= maxAttempts) return Effect.succeed(checked.response)
                  const retryAfter = parseSeconds(response.headers["retry-after"])
                  const wait =
                    retryAfter === undefined
                      ? backoff(n, base, max)
                      : Effect.succeed(Duration.min(Duration.seconds(retryAfter), maxRetryAfter))
                  // Drain the refused answer so its connection can be reused.
                  return Effect.flatMap(Effect.andThen(Effect.ignore(checked.response.text), wait), (delay) =>
                    Effect.andThen(Effect.sleep(delay), attempt(n + 1))
                  )
                })
              )
            })
          )
        return Effect.annotateLogs(attempt(1), "url", request.url)
      })
    )
}

/**
 * What a span may say about a failure and a log line. The OpenTelemetry bridge records a failed span's
 * first error as an `exception` event (`exception.message`, `exception.stacktrace`) and as the span's
 * status message, and a log line inside a span as an event with its annotations and cause. An error's
 * message may quote what a client sent (an unresolved reference names its `external_id`, a conflict the
 * `external_id` raced for, a database error the value it refused, JSON that does not parse its text), and
 * a log line's annotations the request's path: so a span records a failure by its error's tag and stable
 * code only, and an event (a log line) keeps only the attributes known to hold none of a client's values.
 */
import { Cause, Exit, Tracer } from "effect"

/** A failure as a span records it: the error's tag as its name, its code as its message, no stack. */
class RecordedFailure extends Error {
  constructor(tag: string, code: string) {
    super(code)
    this.name = tag
    this.stack = `${tag}: ${code}`
  }
}

const field = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null && key in value ? (value as Record<string, unknown>)[key] : undefined

const tagOf = (error: unknown): string => {
  const tag = field(error, "_tag")
  if (typeof tag === "string") return tag
  return error instanceof Error ? error.name : "UnknownError"
}

/** The stable code of an error: a domain error's `code`, an API error's `error.code`, else its tag. */
const codeOf = (error: unknown): string => {
  const code = field(error, "code") ?? field(field(error, "error"), "code")
  return typeof code === "string" ? code : tagOf(error)
}

/** `cause` with every failure and defect replaced by its tag and code (interruptions as they are). */
const redactedCause = (cause: Cause.Cause<unknown>): Cause.Cause<unknown> => {
  if (Cause.hasInterruptsOnly(cause)) return cause
  const failures = cause.reasons
    .filter(Cause.isFailReason)
    .map((reason) => Cause.makeFailReason(new RecordedFailure(tagOf(reason.error), codeOf(reason.error))))
  const defects = cause.reasons
    .filter(Cause.isDieReason)
    .map((reason) => Cause.makeDieReason(new RecordedFailure(tagOf(reason.defect), "defect")))
  return Cause.fromReasons([...failures, ...defects])
}

/**
 * Attributes of an event a span keeps: a log line's level and fiber, and those of its annotations that
 * hold none of a client's values. The others (a path, an address, the log line's rendered cause) stay in
 * the log, which the request id finds.
 */
const keptAttributes: ReadonlySet<string> = new Set([
  "effect.fiberId",
  "effect.logLevel",
  "request_id",
  "status",
  "duration_ms"
])

const redactedAttributes = (attributes: Record<string, unknown>): Record<string, unknown> => {
  const kept: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(attributes)) if (keptAttributes.has(key)) kept[key] = value
  return kept
}

/** `span` ending with its failures redacted, and its events keeping only the annotations that may be kept. */
const redactedSpan = (span: Tracer.Span): Tracer.Span =>
  // Everything else is the span's own (its fields are read through the prototype; the bridge's context
  // propagation recognises it as its span).
  Object.create(span, {
    end: {
      value: (endTime: bigint, exit: Exit.Exit<unknown, unknown>) =>
        span.end(endTime, Exit.isFailure(exit) ? Exit.failCause(redactedCause(exit.cause)) : exit)
    },
    event: {
      value: (name: string, startTime: bigint, attributes?: Record<string, unknown>) =>
        span.event(name, startTime, attributes === undefined ? undefined : redactedAttributes(attributes))
    }
  }) as Tracer.Span

/** `tracer` whose spans record failures by tag and code only (see above). */
export const redacting = (tracer: Tracer.Tracer): Tracer.Tracer =>
  Tracer.make({
    span: (options) => redactedSpan(tracer.span(options)),
    context: tracer.context
  })

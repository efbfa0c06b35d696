import { Effect } from "effect"
import { expect } from "vitest"
import { parse } from "./PrometheusText.js"

/** One scrape of `GET /metrics`, read by the strict text-format parser (which throws on bad text). */
export interface Scrape {
  /** The sum of a counter's or gauge's samples whose labels include `labels` (0 when there is none). */
  readonly value: (family: string, labels?: Readonly<Record<string, string>>) => number
  /** The observation count of a histogram's series whose labels include `labels`, summed. */
  readonly count: (family: string, labels?: Readonly<Record<string, string>>) => number
  /** How many series of a family have labels including `labels`. */
  readonly samples: (family: string, labels?: Readonly<Record<string, string>>) => number
}

const includes = (have: Readonly<Record<string, string>>, want: Readonly<Record<string, string>>) =>
  Object.entries(want).every(([key, value]) => have[key] === value)

export const scrape = (metricsUrl: string) =>
  Effect.promise(async (): Promise<Scrape> => {
    const response = await fetch(`${metricsUrl}/metrics`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/)
    const families = parse(await response.text())
    const matching = (name: string, sampleName: string, labels: Readonly<Record<string, string>>) =>
      (families.find((f) => f.name === name)?.samples ?? []).filter(
        (sample) => sample.name === sampleName && includes(sample.labels, labels)
      )
    const sum = (samples: ReadonlyArray<{ readonly value: number }>) =>
      samples.reduce((total, sample) => total + sample.value, 0)
    return {
      value: (name, labels = {}) => sum(matching(name, name, labels)),
      count: (name, labels = {}) => sum(matching(name, `${name}_count`, labels)),
      samples: (name, labels = {}) => matching(name, name, labels).length
    }
  })

/**
 * Scrapes until `settled` holds, for at most `withinMillis`, then returns the last scrape. For what is
 * recorded when a job's run ends: its state commits first, so a client may see it finished a moment
 * before its duration is observed.
 */
export const scrapeUntil = (metricsUrl: string, settled: (scrape: Scrape) => boolean, withinMillis = 5_000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + withinMillis
    for (;;) {
      const current = yield* scrape(metricsUrl)
      if (settled(current) || Date.now() >= deadline) return current
      yield* Effect.sleep("20 millis")
    }
  })

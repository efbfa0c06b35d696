/**
 * Progress of a load per resource: records done of the total, the rate over the last seconds, the time
 * left at that rate and the failures so far. The loader counts; renderers (bars, lines, JSON) only read.
 */

export interface ResourceProgress {
  readonly resource: string
  /** Whether the load has begun sending this resource (or, for lines it could not read, counted them). */
  readonly started: boolean
  readonly total: number
  /** Records settled: applied (created, updated, unchanged) or failed. */
  readonly done: number
  readonly created: number
  readonly updated: number
  readonly unchanged: number
  readonly failed: number
  /** Records per second over the last `window` (0 before two samples). */
  readonly rate: number
  /** Seconds left at that rate; undefined while there is no rate. */
  readonly eta: number | undefined
}

/** What a load is doing. */
export type Phase = "scanning" | "media" | "loading" | "finished"

/** The state of a load at one moment. */
export interface Snapshot {
  readonly phase: Phase
  readonly dryRun: boolean
  readonly elapsedMs: number
  readonly resources: ReadonlyArray<ResourceProgress>
}

/** Records by outcome. */
export interface Counts {
  readonly created?: number
  readonly updated?: number
  readonly unchanged?: number
  readonly failed?: number
}

interface Entry {
  started: boolean
  total: number
  created: number
  updated: number
  unchanged: number
  failed: number
  /** (time, done) samples of the rate window, oldest first. */
  samples: Array<readonly [number, number]>
}

const done = (entry: Entry) => entry.created + entry.updated + entry.unchanged + entry.failed

/** Counts per resource, in the order the resources were announced. */
export class Progress {
  private readonly entries = new Map<string, Entry>()
  private phase: Phase = "scanning"

  constructor(
    private readonly started: number,
    readonly dryRun: boolean,
    private readonly windowMs = 15_000
  ) {}

  private entry(resource: string): Entry {
    let entry = this.entries.get(resource)
    if (entry === undefined) {
      entry = { started: false, total: 0, created: 0, updated: 0, unchanged: 0, failed: 0, samples: [] }
      this.entries.set(resource, entry)
    }
    return entry
  }

  setPhase(phase: Phase) {
    this.phase = phase
  }

  setTotal(resource: string, total: number) {
    this.entry(resource).total = total
  }

  /** The load begins sending `resource`: from now on renderers show it. */
  start(resource: string) {
    this.entry(resource).started = true
  }

  /** Adds settled records; `now` is when (for the rate). */
  add(resource: string, counts: Counts, now: number) {
    this.sample(this.count(resource, counts), now)
  }

  private count(resource: string, counts: Counts): Entry {
    const entry = this.entry(resource)
    entry.created += counts.created ?? 0
    entry.updated += counts.updated ?? 0
    entry.unchanged += counts.unchanged ?? 0
    entry.failed += counts.failed ?? 0
    return entry
  }

  private sample(entry: Entry, now: number) {
    entry.samples.push([now, done(entry)])
    while (entry.samples.length > 2 && entry.samples[0]![0] < now - this.windowMs) entry.samples.shift()
  }

  /** Counts that were settled by an earlier run (a resumed load): they add to done but not to the rate. */
  restore(resource: string, counts: Counts) {
    this.count(resource, counts)
  }

  snapshot(now: number): Snapshot {
    const resources = Array.from(this.entries, ([resource, entry]): ResourceProgress => {
      const first = entry.samples[0]
      const last = entry.samples.at(-1)
      // The rate runs up to now, so that it falls while nothing settles.
      const span = first === undefined ? 0 : (now - first[0]) / 1000
      const rate = first === undefined || last === undefined || span <= 0 ? 0 : (last[1] - first[1]) / span
      const left = Math.max(0, entry.total - done(entry))
      return {
        resource,
        started: entry.started,
        total: entry.total,
        done: done(entry),
        created: entry.created,
        updated: entry.updated,
        unchanged: entry.unchanged,
        failed: entry.failed,
        rate,
        eta: left === 0 ? 0 : rate > 0 ? left / rate : undefined
      }
    })
    return { phase: this.phase, dryRun: this.dryRun, elapsedMs: now - this.started, resources }
  }
}

/** `1h02m`, `3m05s`, `42s`; `?` when unknown. */
export const duration = (seconds: number | undefined): string => {
  if (seconds === undefined || !Number.isFinite(seconds)) return "?"
  const s = Math.round(seconds)
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`
}

/** One plain line of a resource under way, for logs and terminals without a TTY (no ETA while there is no rate). */
export const plainLine = (p: ResourceProgress): string =>
  `${p.resource}: ${p.done}/${p.total} (${p.total === 0 ? 100 : Math.floor((p.done / p.total) * 100)}%), ${p.rate.toFixed(1)} records/s${p.eta === undefined ? "" : `, ETA ${duration(p.eta)}`}, ${p.failed} failed`

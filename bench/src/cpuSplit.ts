/**
 * Where a case's CPU went, by process: the servers, PostgreSQL's processes, the latency proxy and this
 * process (the load). Read from /proc (Linux only; elsewhere `cpuSplit` is undefined), so that a ratio of two
 * instances to one can be read against what the machine's cores were doing.
 */
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"

export type Groups = Record<string, ReadonlyArray<number>>

/** CPU seconds so far (user + system) of one process, undefined once it is gone. */
const cpuSeconds = (pid: number, tick: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // Fields after "(comm)": state is the 1st, utime the 12th, stime the 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) / tick
  } catch {
    return undefined
  }
}

/** Every process named `postgres` (the postmaster and its backends). */
const postgresPids = () =>
  readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "postgres"
      } catch {
        return false
      }
    })

export interface Split {
  /** Cores used by each group over the window (CPU seconds per wall second). */
  readonly cores: Record<string, number>
  readonly seconds: number
}

const clockTick = () => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
  } catch {
    return 100
  }
}

/**
 * A window's start: `end()` answers the cores each group used since. PostgreSQL's backends are listed at
 * both ends, so that a connection opened in the window counts from its start.
 */
export const cpuSplit = existsSync("/proc/self/stat")
  ? (() => {
      const tick = clockTick()
      return (groups: Groups) => {
        const sample = () => {
          const seconds = new Map<string, Map<number, number>>()
          for (const [name, pids] of Object.entries({ ...groups, PostgreSQL: postgresPids() })) {
            const of = new Map<number, number>()
            for (const pid of pids) {
              const s = pid === process.pid ? process.cpuUsage() : undefined
              const value = s === undefined ? cpuSeconds(pid, tick) : (s.user + s.system) / 1e6
              if (value !== undefined) of.set(pid, value)
            }
            seconds.set(name, of)
          }
          return seconds
        }
        const before = sample()
        const started = performance.now()
        return {
          end: (): Split => {
            const after = sample()
            const wall = (performance.now() - started) / 1000
            const cores: Record<string, number> = {}
            for (const [name, of] of after) {
              let used = 0
              for (const [pid, value] of of) used += value - (before.get(name)?.get(pid) ?? 0)
              cores[name] = used / wall
            }
            return { cores, seconds: wall }
          }
        }
      }
    })()
  : undefined

/** "server 0.91, PostgreSQL 0.45, ... cores; per request: server 1.9 ms, ..." */
export const describeSplit = (split: Split, work: number, unit: string) => {
  const entries = Object.entries(split.cores).sort(([, a], [, b]) => b - a)
  const total = entries.reduce((sum, [, c]) => sum + c, 0)
  const perUnit =
    work > 0 ? entries.map(([name, c]) => `${name} ${((c * split.seconds * 1000) / work).toFixed(2)}`) : []
  return `cores: ${entries.map(([name, c]) => `${name} ${c.toFixed(2)}`).join(", ")} (total ${total.toFixed(2)})${
    perUnit.length > 0 ? `; CPU ms per ${unit}: ${perUnit.join(", ")}` : ""
  }`
}

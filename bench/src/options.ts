/** The command line (see main.ts) and the plan it sets: rounds, seconds and sizes of the scenarios. */
export const root = process.cwd()
const args = process.argv.slice(2)
export const quick = args.includes("--quick")
export const profile = args.includes("--profile")
export const only = args
  .find((a) => a.startsWith("--only="))
  ?.slice(7)
  .split(",")
export const wanted = (name: string) => only === undefined || only.includes(name)
export const overloadBursts = Math.max(
  2,
  Number(args.find((a) => a.startsWith("--overload-bursts="))?.slice(18) ?? 6) || 6
)
export const heapSnapshots = args.includes("--heap-snapshots")

export const plan = quick
  ? { rounds: 3, seconds: 2, warmSeconds: 1, latencyRounds: 1, companies: 60, deepRecords: 100_000, overloadSeconds: 3 }
  : {
      rounds: 5,
      seconds: 5,
      warmSeconds: 2,
      latencyRounds: 3,
      companies: 150,
      deepRecords: 100_000,
      overloadSeconds: 8
    }
export const connections = 32
export const keysPerCompany = 5

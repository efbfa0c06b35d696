/**
 * Robustness suites run a seeded, bounded amount of work under `npm test` and a larger one under
 * `npm run soak` (SOAK=1). `SOAK_SEED` replays a run; every suite prints the seed it used.
 */
export const soak = process.env.SOAK === "1"

/** `ci` iterations under npm test, `soakRuns` under npm run soak. */
export const scaled = (ci: number, soakRuns: number) => (soak ? soakRuns : ci)

/** The fast-check seed: SOAK_SEED when given, else a fixed one in CI (reproducible), else random under soak. */
export const seed = (fixed: number) => {
  const given = Number(process.env.SOAK_SEED)
  if (Number.isInteger(given) && process.env.SOAK_SEED !== undefined && process.env.SOAK_SEED !== "") return given
  return soak ? Math.floor(Math.random() * 2 ** 31) : fixed
}

/** mulberry32: a small seeded generator, so that a run's choices (not its interleaving) replay from its seed. */
export const random = (s: number) => () => {
  s = (s + 0x6d2b79f5) | 0
  let t = Math.imul(s ^ (s >>> 15), 1 | s)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

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

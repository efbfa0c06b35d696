/**
 * The upsert rules as properties over any persistence layer: generated valid bodies of a resource are
 * accepted, and generated invalid bodies are refused with the code and JSON path they are labelled with.
 * A few catalogs are written first (one company each); every body is then tried against one of them in a
 * transaction that is rolled back, so all bodies meet the same state. A seed reproduces the catalogs and
 * the bodies; a failure names the options (`seed`, `path`, `only`) that replay it. They are Effects that any
 * test runner can run; `BodySuite.ts` registers them as vitest tests.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { CurrentPrincipal } from "../Auth/Principal.js"
import type { ResourceName } from "../Resources/Resource.js"
import { catalog, type CatalogLimits, defaultLimits, everyKind } from "./arbitraries/Catalogs.js"
import { type InvalidWrite, invalidWrite, isWithin } from "./arbitraries/InvalidBodies.js"
import { companySettings } from "./arbitraries/Settings.js"
import { type ValidWrite, validWrite } from "./arbitraries/ValidBodies.js"
import { type Answer, breathe, tryUpsert } from "./Probe.js"
import { assertProperty, type ReplayOptions, runs, seedOf } from "./Replay.js"
import { type World, write } from "./World.js"

export interface BodyPropertyOptions extends ReplayOptions {
  /** Valid bodies tried per resource (default 1000). */
  readonly validRuns?: number | undefined
  /** Invalid bodies tried per resource (default 300). */
  readonly invalidRuns?: number | undefined
  /** Catalogs written, each in a company of its own, that the bodies are tried against (default 4). */
  readonly worlds?: number | undefined
  /** Only these resources (default: all seven). */
  readonly resources?: ReadonlyArray<ResourceName> | undefined
  /** The most records of each kind per catalog (at least one of every kind is always written). */
  readonly limits?: CatalogLimits | undefined
}

/** The catalogs for a seed: the same seed, the same companies and records. */
export const worldPlans = (seed: number, count: number, limits: CatalogLimits = defaultLimits) =>
  fc.sample(
    companySettings.chain((settings) => catalog(settings, limits, everyKind)),
    { seed, numRuns: count }
  )

/** Writes the seed's catalogs through the catalog use case. */
export const writeWorlds = (seed: number, count: number, limits?: CatalogLimits) =>
  Effect.forEach(worldPlans(seed, count, limits), (plan) => write(plan))

const topLevel = (path: string) => /^\$(\.[^.[]+)?/.exec(path)?.[0] ?? "$"

const describeAnswer = (answer: Answer<unknown>) =>
  answer._tag === "Accepted"
    ? `accepted (${JSON.stringify((answer.value as { outcome?: unknown }).outcome)})`
    : `refused with ${answer.code} at ${JSON.stringify(answer.paths)}: ${String((answer.error as { message?: unknown }).message)}`

/** Why `answer` is not what a valid write gets, or undefined when it is. */
export const validMismatch = (write: ValidWrite, answer: Answer<{ readonly outcome: string }>): string | undefined => {
  if (answer._tag === "Refused") return `a valid body was ${describeAnswer(answer)}`
  const expected = write.writes === "create" ? ["created"] : ["updated", "unchanged"]
  return expected.includes(answer.value.outcome)
    ? undefined
    : `a ${write.writes} answered ${answer.value.outcome}, not ${expected.join(" or ")}`
}

/**
 * Why `answer` is not the labelled refusal, or undefined when it is: the code, the path among the issues,
 * and no issue outside the labelled field (a union reports at the field itself as well as inside it).
 */
export const invalidMismatch = (
  write: Pick<InvalidWrite, "rule" | "code" | "path">,
  answer: Answer<unknown>
): string | undefined => {
  const want = `${write.code}${write.path === null ? "" : ` at ${write.path}`}`
  if (answer._tag === "Accepted") return `${write.rule}: expected ${want}, but the body was ${describeAnswer(answer)}`
  if (answer.code !== write.code) return `${write.rule}: expected ${want}, but it was ${describeAnswer(answer)}`
  if (write.path === null) return undefined
  const field = topLevel(write.path)
  if (!answer.paths.includes(write.path) || !answer.paths.every((path) => isWithin(path, field)))
    return `${write.rule}: expected ${want}, but it was ${describeAnswer(answer)}`
  return undefined
}

/** How a property over written catalogs runs: its seed (catalogs and draws), fast-check's path, its runs. */
export interface WorldPropertyOptions extends ReplayOptions {
  /** Draws tried (default 100). */
  readonly runs?: number | undefined
  /** Catalogs written, each in a company of its own (default 4). */
  readonly worlds?: number | undefined
  readonly limits?: CatalogLimits | undefined
}

/**
 * Asserts `check` for draws against the given worlds, each run as the world's principal; a failure or a
 * defect of `check` is a counterexample, shrunk and reported with the options that replay it.
 */
export const assertOverWorlds = <A, R>(
  name: string,
  worlds: ReadonlyArray<World>,
  draw: (world: World) => fc.Arbitrary<A>,
  check: (world: World, drawn: A) => Effect.Effect<unknown, unknown, R>,
  options: ReplayOptions & { readonly seed: number; readonly numRuns: number }
) =>
  Effect.flatMap(Effect.context<Exclude<R, CurrentPrincipal>>(), (context) =>
    assertProperty(
      name,
      fc.asyncProperty(
        fc.nat({ max: worlds.length - 1 }).chain((i) => draw(worlds[i]!).map((drawn) => ({ world: i, drawn }))),
        async ({ world, drawn }) => {
          await breathe()
          const principal = worlds[world]!.principal
          await Effect.runPromiseWith(context)(
            Effect.provideService(check(worlds[world]!, drawn), CurrentPrincipal, principal)
          )
        }
      ),
      options
    )
  )

/**
 * Writes the seed's catalogs, then asserts `check` for `runs` draws against them (`draw(world)`), each
 * as the world's principal: `forAllWorlds((w) => Arbitraries.validWrite(w, "products"), (w, write) => …)`.
 * Its failures replay with `only: "property"`.
 */
export const forAllWorlds = <A, R>(
  draw: (world: World) => fc.Arbitrary<A>,
  check: (world: World, drawn: A) => Effect.Effect<unknown, unknown, R>,
  options: WorldPropertyOptions = {}
) =>
  Effect.gen(function* () {
    const seed = seedOf(options)
    const worlds = yield* writeWorlds(seed, options.worlds ?? 4, options.limits)
    yield* assertOverWorlds("property", worlds, draw, check, { ...options, seed, numRuns: options.runs ?? 100 })
    return { seed }
  })

/** Fails with the mismatch when there is one. */
const mismatchAsFailure = (mismatch: string | undefined) =>
  mismatch === undefined ? Effect.void : Effect.die(new Error(mismatch))

/**
 * Writes the seed's catalogs, then asserts that `validRuns` valid bodies of `resource` are accepted
 * (a create `created`, an update `updated` or `unchanged`) and `invalidRuns` invalid ones refused as
 * labelled (properties `<resource>: valid` and `<resource>: invalid`). Fails with fast-check's report
 * and the options that replay the failure.
 */
export const checkBodies = (resource: ResourceName, options: BodyPropertyOptions = {}) =>
  Effect.gen(function* () {
    const seed = seedOf(options)
    const valid = `${resource}: valid`
    const invalid = `${resource}: invalid`
    if (!runs(options, valid) && !runs(options, invalid)) return { seed, valid: 0, invalid: 0 }
    const worlds = yield* writeWorlds(seed, options.worlds ?? 4, options.limits)
    const validRuns = runs(options, valid) ? (options.validRuns ?? 1000) : 0
    const invalidRuns = runs(options, invalid) ? (options.invalidRuns ?? 300) : 0
    if (validRuns > 0)
      yield* assertOverWorlds(
        valid,
        worlds,
        (world) => validWrite(world, resource),
        (_, drawn) =>
          Effect.flatMap(tryUpsert(resource, drawn.body), (answer) => mismatchAsFailure(validMismatch(drawn, answer))),
        { ...options, seed, numRuns: validRuns }
      )
    if (invalidRuns > 0)
      yield* assertOverWorlds(
        invalid,
        worlds,
        (world) => invalidWrite(world, resource),
        (_, drawn) =>
          Effect.flatMap(tryUpsert(resource, drawn.body), (answer) =>
            mismatchAsFailure(invalidMismatch(drawn, answer))
          ),
        { ...options, seed, numRuns: invalidRuns }
      )
    return { seed, valid: validRuns, invalid: invalidRuns }
  })

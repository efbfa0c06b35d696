import { CommonFields, Currency, Ids, Scope, Translations } from "@catalog-sync/core"
import { Schema } from "effect"
import { Argument, Flag } from "effect/cli"

/** A value the command line cannot take; its message is the one line the user sees. */
class InvalidInput extends Error {}

/**
 * The messages of the values refused below, as the library carries them (`InvalidValue.expected`): the
 * command line reports them as they are, and the library's own "expected" texts in its wording.
 */
const explanations = new Set<string>()

/** Whether `expected` of an InvalidValue is one of the messages below, the one line to show as it is. */
export const isExplanation = (expected: string) => explanations.has(expected)

/** The message of a refused value, remembered as one of ours. */
export const explain = (error: unknown): string => {
  const message = error instanceof InvalidInput ? error.message : String(error)
  explanations.add(message)
  return message
}

/** Options and arguments are checked as they are parsed: `parse` returns the value or throws InvalidInput. */
const checked = <A>(parse: (raw: string) => A) => Flag.mapTryCatch<string, A>(parse, explain)

const invalid = (message: string): never => {
  throw new InvalidInput(message)
}

/** What an option's help shows under its name: what it is, then an example and its default where they help. */
export interface Help {
  readonly description: string
  /** A value as one would type it, shown as `Example: --name value`. */
  readonly example?: string
  /** What the option is when it is left out, shown as `Default: ...`. */
  readonly default?: string
}

/** Adds the help of `--name` to an option. */
export const withHelp =
  (name: string, help: Help | string) =>
  <A>(option: Flag.Flag<A>): Flag.Flag<A> => {
    const { description, example, default: fallback } = typeof help === "string" ? { description: help } : help
    // One description per flag: the example and the default follow it as sentences of their own.
    const parts = [
      description,
      ...(example === undefined ? [] : [`Example: --${name} ${example}`]),
      ...(fallback === undefined ? [] : [`Default: ${fallback}`])
    ]
    return Flag.withDescription(option, parts.join(". "))
  }

const isUuid = Schema.is(Ids.UUID)

const uuidOf = (what: string) => (raw: string) =>
  isUuid(raw) ? raw : invalid(`${what} must be a uuid (as printed by the command that created it), not "${raw}"`)

/** `--name <uuid>`: the id of a company, connection, location or inventory item. */
export const uuid = (name: string, help: Help | string) =>
  Flag.String(name).pipe(Flag.withMetavar("uuid"), withHelp(name, help), checked(uuidOf(`--${name}`)))

/** A positional uuid (`company show <company-id>`). */
export const uuidArg = (name: string, description: string) =>
  Argument.String(name).pipe(Argument.withDescription(description), Argument.mapTryCatch(uuidOf(`<${name}>`), explain))

/**
 * `--name a|b|c`: one of `values`, refused in the words the CLI has always used (the library's own
 * message names the values differently).
 */
export const choice = <const A extends string>(name: string, values: ReadonlyArray<A>) =>
  Flag.String(name).pipe(
    Flag.withMetavar(values.join("|")),
    checked((raw) =>
      (values as ReadonlyArray<string>).includes(raw)
        ? (raw as A)
        : invalid(`Expected one of the following cases: ${values.join(", ")}`)
    )
  )

const items = (raw: string) =>
  raw
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "")

/** `--scopes a,b`: every item one of the API's scopes. */
export const scopes = (help: Help) =>
  Flag.String("scopes").pipe(
    Flag.withMetavar("scope,..."),
    withHelp("scopes", {
      example: "catalog:read,catalog:write",
      ...help,
      description: `${help.description}, comma-separated, among ${Scope.all.join(", ")}`
    }),
    checked((raw) => {
      const list = items(raw)
      if (list.length === 0) return invalid(`--scopes needs at least one of: ${Scope.all.join(", ")}`)
      const unknown = list.filter((scope) => !(Scope.all as ReadonlyArray<string>).includes(scope))
      return unknown.length === 0
        ? list
        : invalid(`unknown scope ${unknown.join(", ")}; valid scopes: ${Scope.all.join(", ")}`)
    })
  )

/** `--currency EUR`: an ISO 4217 code. */
export const currency = Flag.String("currency").pipe(
  Flag.withMetavar("code"),
  withHelp("currency", { description: "the company currency, an ISO 4217 code", example: "EUR" }),
  checked((raw) =>
    Currency.codes.has(raw)
      ? raw
      : invalid(`--currency must be an ISO 4217 currency code such as EUR or USD, not "${raw}"`)
  )
)

/** A language code whose language is known (`en`, `de`, `pt-BR`), as the admin use case checks it. */
const language = (option: string) => (raw: string) =>
  Translations.isKnownLanguage(raw)
    ? raw
    : invalid(`${option} takes language codes such as en, de or pt-BR; "${raw}" is not one`)

export const mainLanguage = Flag.String("main-language").pipe(
  Flag.withMetavar("code"),
  withHelp("main-language", { description: "the main language of the catalog content", example: "en" }),
  checked(language("--main-language"))
)

export const languages = (help: Omit<Help, "description">) =>
  Flag.String("languages").pipe(
    Flag.withMetavar("code,..."),
    withHelp("languages", {
      description: "further enabled languages, comma-separated (the main language is always enabled)",
      example: "de,fr",
      ...help
    }),
    checked((raw) => items(raw).map(language("--languages")))
  )

/** A comma-separated list of free text (tax rates and domains are checked by the admin use case). */
export const list = (name: string, help: Help) =>
  Flag.String(name).pipe(Flag.withMetavar("value,..."), withHelp(name, help), checked(items))

const onValues = ["on", "true", "yes", "1"]
const offValues = ["off", "false", "no", "0"]

/** `--name on|off`. */
export const onOff = (name: string, help: Help | string) =>
  Flag.String(name).pipe(
    Flag.withMetavar("on|off"),
    withHelp(name, help),
    checked((raw) =>
      onValues.includes(raw)
        ? true
        : offValues.includes(raw)
          ? false
          : invalid(`--${name} takes on or off, not "${raw}"`)
    )
  )

/** `--name <whole number>` within bounds. */
export const wholeNumber = (name: string, help: Help, min: number, max: number) =>
  Flag.String(name).pipe(
    Flag.withMetavar("number"),
    withHelp(name, help),
    checked((raw) => {
      const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN
      return n >= min && n <= max ? n : invalid(`--${name} takes a whole number from ${min} to ${max}, not "${raw}"`)
    })
  )

/** A decimal quantity kept as written (the inventory use case checks it). */
export const quantity = (name: string, help: Help) =>
  Flag.String(name).pipe(
    Flag.withMetavar("decimal"),
    withHelp(name, help),
    checked((raw) =>
      /^-?\d+(\.\d+)?$/.test(raw) ? raw : invalid(`--${name} takes a decimal number such as 2 or 1.5, not "${raw}"`)
    )
  )

/** Free text that must not be empty. */
export const text = (name: string, help: Help | string) =>
  Flag.String(name).pipe(
    withHelp(name, help),
    checked((raw) => (raw.trim() === "" ? invalid(`--${name} must not be empty`) : raw))
  )

/**
 * The name of a company, connection, location or key: text, and a name as the API takes one (no control
 * or bidi override characters). The message names the character, never echoes it: it could be a
 * terminal escape.
 */
export const displayName = (name: string, help: Help | string) =>
  text(name, help).pipe(
    checked((raw) => {
      const refused = CommonFields.refusedInName(raw)
      return refused === undefined ? raw : invalid(`--${name} ${CommonFields.nameMessage} (it holds ${refused})`)
    })
  )

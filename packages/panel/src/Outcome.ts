/** What a use case's failure means to a page: a field's problem to show on the form, or "not found". */
import type { FormFields } from "./Visit.js"
import type { FormState } from "./Forms.js"

const tagOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "_tag" in error ? String(error._tag) : undefined

/** Whether the failure means the thing is not there for this user (answered 404). */
export const isNotFound = (error: unknown): boolean => {
  const tag = tagOf(error)
  return tag === "PanelForbidden" || tag === "RecordNotFound"
}

/** The reason a change was refused though the caller may make such changes (a disabled company, the last owner...). */
export const changeRefusal = (error: unknown): string | undefined =>
  tagOf(error) === "PanelChangeRefused" ? String((error as { readonly message?: unknown }).message) : undefined

/** The field a JSON path of a refused body names: `$.tax_rates[0]` is `tax_rates`; `$` the whole form. */
const fieldOfPath = (path: string): string => /^\$\.([A-Za-z_]+)/.exec(path)?.[1] ?? ""

/**
 * The errors by field of a refused form (validation issues, a conflicting unique value), or undefined
 * when the failure is not about what was typed.
 */
export const fieldErrors = (error: unknown): Record<string, string> | undefined => {
  const tag = tagOf(error)
  const failure = error as {
    readonly message?: string
    readonly field?: string
    readonly issues?: ReadonlyArray<{ readonly path: string; readonly message: string }>
  }
  if (tag === "AccountConflict") return { [failure.field ?? ""]: failure.message ?? "already in use" }
  if (tag !== "ValidationFailed" && tag !== "RuleViolation" && tag !== "PeopleInputRefused") return undefined
  const errors: Record<string, string> = {}
  for (const issue of failure.issues ?? []) {
    const name = fieldOfPath(issue.path)
    errors[name] = errors[name] === undefined ? issue.message : `${errors[name]}; ${issue.message}`
  }
  if (Object.keys(errors).length === 0) errors[""] = failure.message ?? "check the form"
  return errors
}

/** The state to show form `form` again with: what was sent (but the token and passwords) and its errors. */
export const failedForm = (form: string, fields: FormFields, errors: Record<string, string>): FormState => ({
  form,
  values: Object.fromEntries(Object.entries(fields).filter(([name]) => name !== "csrf" && !name.includes("password"))),
  errors
})

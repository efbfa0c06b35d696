/**
 * Labelled form fields with their error next to them: a failed form is shown again with what was typed
 * (never a password) and each field's problem, linked by `aria-describedby`.
 */
import { type Html, html } from "./Html.js"
import { csrfField } from "./Layout.js"

/** A form that failed: the values sent and the error of each field (`""` for the whole form). */
export interface FormState {
  readonly form: string
  readonly values: Readonly<Record<string, string | ReadonlyArray<string>>>
  readonly errors: Readonly<Record<string, string>>
}

/** The state of form `name`, when it is the one that failed. */
export const stateOf = (state: FormState | undefined, name: string): FormState | undefined =>
  state?.form === name ? state : undefined

const valueOf = (state: FormState | undefined, field: string, fallback: string) => {
  const value = state?.values[field]
  return typeof value === "string" ? value : fallback
}

const describedBy = (id: string, hint: string | undefined, error: string | undefined) => {
  const ids = [hint === undefined ? null : `${id}-hint`, error === undefined ? null : `${id}-error`].filter(
    (part) => part !== null
  )
  return ids.length === 0 ? null : html` aria-describedby="${ids.join(" ")}"`
}

/** A labelled text input (`type` text, email, password or number). */
export const input = (options: {
  readonly form: string
  readonly name: string
  readonly label: string
  readonly state: FormState | undefined
  readonly value?: string
  readonly type?: "text" | "email" | "password" | "number"
  readonly hint?: string
  readonly required?: boolean
  readonly autocomplete?: string
  readonly attributes?: Html
}): Html => {
  const id = `${options.form}-${options.name}`
  const error = options.state?.errors[options.name]
  const value = options.type === "password" ? "" : valueOf(options.state, options.name, options.value ?? "")
  return html`<div class="field">
    <label for="${id}">${options.label}</label>
    ${options.hint === undefined ? null : html`<span class="hint" id="${id}-hint">${options.hint}</span>`}
    ${error === undefined ? null : html`<span class="error" id="${id}-error">${error}</span>`}
    <input
      id="${id}"
      name="${options.name}"
      type="${options.type ?? "text"}"
      value="${value}"
      ${
        options.required === true ? html` required` : null
      }${options.autocomplete === undefined ? null : html` autocomplete="${options.autocomplete}"`}${
        error === undefined ? null : html` aria-invalid="true"`
      }${describedBy(id, options.hint, error)}${options.attributes ?? null}
    />
  </div>`
}

/** A labelled select of `choices` ([value, label]). */
export const select = (options: {
  readonly form: string
  readonly name: string
  readonly label: string
  readonly state: FormState | undefined
  readonly value: string
  readonly choices: ReadonlyArray<readonly [string, string]>
}): Html => {
  const id = `${options.form}-${options.name}`
  const error = options.state?.errors[options.name]
  const chosen = valueOf(options.state, options.name, options.value)
  return html`<div class="field">
    <label for="${id}">${options.label}</label>
    ${error === undefined ? null : html`<span class="error" id="${id}-error">${error}</span>`}
    <select
      id="${id}"
      name="${options.name}"
      ${error === undefined ? null : html` aria-invalid="true" aria-describedby="${id}-error"`}
    >
      ${options.choices.map(
        ([value, label]) =>
          html`<option value="${value}" ${value === chosen ? html` selected` : null}>${label}</option>`
      )}
    </select>
  </div>`
}

/** A group of labelled checkboxes named `name`, one per choice ([value, label]). */
export const checkboxes = (options: {
  readonly form: string
  readonly name: string
  readonly legend: string
  readonly state: FormState | undefined
  readonly checked: ReadonlyArray<string>
  readonly choices: ReadonlyArray<readonly [string, string]>
  readonly hint?: string
}): Html => {
  const id = `${options.form}-${options.name}`
  const error = options.state?.errors[options.name]
  const sent = options.state?.values[options.name]
  const checked = options.state === undefined ? options.checked : typeof sent === "string" ? [sent] : (sent ?? [])
  return html`<fieldset class="field checks" ${describedBy(id, options.hint, error)}>
    <legend>${options.legend}</legend>
    ${options.hint === undefined ? null : html`<span class="hint" id="${id}-hint">${options.hint}</span>`}
    ${error === undefined ? null : html`<span class="error" id="${id}-error">${error}</span>`}
    ${options.choices.map(
      ([value, label], i) =>
        html`<label for="${id}-${i}"
          ><input
            type="checkbox"
            id="${id}-${i}"
            name="${options.name}"
            value="${value}"
            ${checked.includes(value) ? html` checked` : null}
          />
          ${label}</label
        >`
    )}
  </fieldset>`
}

/** A POST form with the session's token, the whole form's error on top, and a submit button. */
export const form = (options: {
  readonly action: string
  readonly csrf: string | undefined
  readonly state: FormState | undefined
  readonly submit: string
  readonly heading?: string
  readonly danger?: boolean
  readonly bare?: boolean
  readonly fields: Html | ReadonlyArray<Html>
}): Html => {
  const error = options.state?.errors[""]
  return html`<form
    method="post"
    action="${options.action}"
    ${options.bare === true ? null : html` class="card"`}${
      options.heading === undefined ? null : html` aria-label="${options.heading}"`
    }
  >
    ${csrfField(options.csrf)} ${error === undefined ? null : html`<p class="error" role="alert">${error}</p>`}
    ${options.fields}
    <button type="submit" ${options.danger === true ? html` class="danger"` : null}>${options.submit}</button>
  </form>`
}

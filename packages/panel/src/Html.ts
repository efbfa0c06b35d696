/**
 * HTML built from templates in which every interpolated value is text: escaped, unless it is `Html`
 * made by this module (so markup can only come from the panel's own templates, never from a name).
 */

/** Markup that is already safe to write into a page. */
export class Html {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup
  }
}

/** What a template accepts in a `${}`: text (escaped), markup, or a list of them; nothing for null/undefined/false. */
export type Interpolated = Html | string | number | boolean | null | undefined | ReadonlyArray<Interpolated>

const entities: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }

/** Text as it may stand in an element or in a quoted attribute value. */
export const escape = (text: string): string => text.replace(/[&<>"']/g, (character) => entities[character]!)

const render = (value: Interpolated): string => {
  if (value === null || value === undefined || value === false) return ""
  if (value instanceof Html) return value.markup
  if (Array.isArray(value)) return (value as ReadonlyArray<Interpolated>).map(render).join("")
  return escape(String(value))
}

/** A template of markup whose values are escaped (see `Interpolated`). */
export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<Interpolated>): Html =>
  new Html(strings.reduce((out, text, i) => out + text + (i < values.length ? render(values[i]) : ""), ""))

/** Markup joined from parts, each escaped as in a template. */
export const join = (parts: ReadonlyArray<Interpolated>): Html => new Html(render(parts))

/**
 * One request to the panel: who sent it (the signed-in user, from the session cookie), whether it came
 * over TLS, and the checks a form post passes before it changes anything: same origin, then the form's
 * token equal to the session's. Answers are HTML with a strict Content-Security-Policy.
 */
import { CompanyPanel, type PanelUser as PanelUserModule } from "@catalog-sync/core"
import { type ProxySettings, TrustedProxies } from "@catalog-sync/adapter-http"
import { Effect, Option } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse, UrlParams } from "effect/http"
import type { Html } from "./Html.js"
import { type Base, page } from "./Layout.js"
import { clientAddress, overTls, panelOrigin, sameOrigin, sameToken, sessionCookie } from "./Session.js"

type PanelUser = PanelUserModule.PanelUser
type PanelSession = PanelUserModule.PanelSession

/**
 * Scripts and styles from the panel's own files only (no inline script or style, no eval), nothing
 * framed, forms posted only here, no address sent to another site in a Referer (`same-origin`: with
 * `no-referrer` a browser would send its form posts with `Origin: null`, which the origin check refuses).
 */
export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'"
].join("; ")

export const securityHeaders = {
  "content-security-policy": contentSecurityPolicy,
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  // Pages show a company's data (and once, a key's secret): no cache keeps them.
  "cache-control": "no-store"
} as const

/** A request to the panel, with what its answer depends on. */
export interface Visit {
  readonly request: HttpServerRequest.HttpServerRequest
  readonly base: Base
  readonly proxies: ProxySettings
  readonly secure: boolean
  readonly address: string
}

export const visitOf = (request: HttpServerRequest.HttpServerRequest, base: Base) =>
  Effect.gen(function* () {
    const proxies = yield* TrustedProxies
    return {
      request,
      base,
      proxies,
      secure: overTls(request, proxies),
      address: clientAddress(request, proxies)
    } satisfies Visit
  })

/** A signed-in visit: the user, their session (its form token) and the caller the use cases take. */
export interface SignedIn extends Visit {
  readonly user: PanelUser
  readonly session: PanelSession
  readonly caller: { readonly user: PanelUser; readonly address: string | null }
  readonly token: string
  /** The route's path parameters (`company`, `connection`...). */
  readonly params: Readonly<Record<string, string | undefined>>
}

/** An HTML answer with the panel's headers. */
export const htmlAnswer = (body: Html, status = 200, headers: Record<string, string> = {}) =>
  HttpServerResponse.text(body.markup, {
    status,
    contentType: "text/html; charset=utf-8",
    headers: { ...securityHeaders, ...headers }
  })

/** A 303 to `location` (after a form post, the page is asked for again with GET). */
export const seeOther = (location: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.empty({ status: 303, headers: { ...securityHeaders, ...headers, location } })

/** The page for what does not exist, or does not exist for this user (the same to them). */
export const notFound = (visit: Visit, user?: PanelUser, csrf?: string) =>
  htmlAnswer(
    page(
      { base: visit.base, user, csrf },
      { title: "Not found" },
      `There is nothing at this address for you. Check the link, or go back to the panel's start.`
    ),
    404
  )

/** Why a form post was refused before it was read: what a script sending forms to the panel must change. */
export type Refusal = "origin" | "form" | "token"

const refusalText = (visit: Visit, refusal: Refusal): string => {
  const origin = panelOrigin(visit.request, visit.proxies)
  const claimed = visit.request.headers["origin"] ?? visit.request.headers["referer"]
  switch (refusal) {
    case "origin":
      return `This form did not come from a page of this panel: the request ${
        claimed === undefined ? "had no Origin or Referer header" : `named the origin ${claimed}`
      }. A browser sends the form again from the panel's page; a script sending forms sends the header Origin: ${origin}.`
    case "form":
      return `This form could not be read: a form is sent as application/x-www-form-urlencoded with a Content-Length of at most ${maxFormBytes / 1024} KB.`
    case "token":
      return "This form's csrf field is missing or does not match this browser's session: its page is too old, or was opened in another session. Open the page again and send the form from there (a script sends the csrf value of the page it read, with the cookies that page set)."
  }
}

/** The page for a form post that failed the origin, form or token check, naming which. */
export const refused = (visit: Visit, refusal: Refusal) =>
  htmlAnswer(page({ base: visit.base }, { title: "Request refused" }, refusalText(visit, refusal)), 403)

/** The signed-in user of the visit, if its session cookie names a live session. */
export const signedIn = (
  visit: Visit,
  params: Readonly<Record<string, string | undefined>> = {}
): Effect.Effect<Option.Option<SignedIn>, unknown, CompanyPanel.CompanyPanel> =>
  Effect.gen(function* () {
    const token = visit.request.cookies[sessionCookie]
    if (token === undefined || token === "") return Option.none()
    const panel = yield* CompanyPanel.CompanyPanel
    const found = yield* panel.authenticate(token)
    return Option.map(found, ({ session, user }) => ({
      ...visit,
      user,
      session,
      token,
      params,
      caller: { user, address: visit.address }
    }))
  })

/** The fields of a urlencoded form: one value, or several for a repeated name (checkboxes). */
export type FormFields = Readonly<Record<string, string | ReadonlyArray<string>>>

/** The most bytes a panel form may have. */
export const maxFormBytes = 64 * 1024

/** Reads the form of a POST; undefined when it is not a urlencoded form declaring a length within `maxFormBytes`. */
export const readForm = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    // Browsers send a form's length; a body without one (chunked) could be any size, so it is not read.
    const declared = request.headers["content-length"]
    const length = declared === undefined ? Number.NaN : Number(declared)
    const type = request.headers["content-type"] ?? ""
    if (!type.startsWith("application/x-www-form-urlencoded") || !(length <= maxFormBytes)) return undefined
    const text = yield* request.text
    if (text.length > maxFormBytes) return undefined
    return UrlParams.toRecord(UrlParams.fromInput(new URLSearchParams(text)))
  })

/** The one value of a field ("" when absent; the first when repeated). */
export const field = (fields: FormFields, name: string): string => {
  const value = fields[name]
  return typeof value === "string" ? value : (value?.[0] ?? "")
}

/** Every value of a field (checkboxes). */
export const fieldValues = (fields: FormFields, name: string): ReadonlyArray<string> => {
  const value = fields[name]
  return value === undefined ? [] : typeof value === "string" ? [value] : value
}

/** Handles a GET that needs a signed-in user: without one, the sign-in page. */
export const page$ =
  <E, R>(base: Base, handle: (visit: SignedIn) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  (request: HttpServerRequest.HttpServerRequest) =>
    Effect.gen(function* () {
      const visit = yield* visitOf(request, base)
      const who = yield* signedIn(visit, yield* HttpRouter.params)
      if (Option.isNone(who)) return seeOther(`${base}/sign-in`)
      return yield* handle(who.value)
    })

/**
 * Handles a form post that changes something: refused (403) unless it comes from this origin and carries
 * the session's form token; without a session, the sign-in page.
 */
export const action$ =
  <E, R>(
    base: Base,
    handle: (visit: SignedIn, fields: FormFields) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ) =>
  (request: HttpServerRequest.HttpServerRequest) =>
    Effect.gen(function* () {
      const visit = yield* visitOf(request, base)
      if (!sameOrigin(request, visit.proxies)) return refused(visit, "origin")
      const fields = yield* readForm(request)
      if (fields === undefined) return refused(visit, "form")
      const who = yield* signedIn(visit, yield* HttpRouter.params)
      if (Option.isNone(who)) return seeOther(`${base}/sign-in`)
      if (!sameToken(field(fields, "csrf"), who.value.session.csrf_token)) return refused(visit, "token")
      return yield* handle(who.value, fields)
    })

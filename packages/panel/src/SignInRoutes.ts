/**
 * Sign-in, sign-out and sign-out everywhere. The sign-in form carries a token of its own (a cookie and a
 * hidden field that must match), as there is no session yet; a sign-in ends the session the browser had
 * and starts a new one (rotation), so a cookie from before it is worthless after it, and removes the
 * form's token cookie.
 */
import { CompanyPanel } from "@catalog-sync/core"
import { Effect, Option, Result } from "effect"
import { type HttpServerRequest, HttpServerResponse } from "effect/http"
import { form, type FormState, input } from "./Forms.js"
import { html } from "./Html.js"
import { type Base, csrfField, page } from "./Layout.js"
import type { PanelRouter } from "./PanelRouter.js"
import { clearCookie, newFormToken, sameOrigin, sameToken, sessionCookie, setCookie, signInCookie } from "./Session.js"
import { action$, field, htmlAnswer, readForm, refused, seeOther, signedIn, type Visit, visitOf } from "./Visit.js"

const minutes = (seconds: number) => Math.max(1, Math.ceil(seconds / 60))

/** Who this browser is signed in as already: shown on the form, never followed without asking. */
interface Current {
  readonly email: string
  readonly csrf: string
}

const signInPage = (visit: Visit, formToken: string, state?: FormState, problem?: string, current?: Current) =>
  page(
    { base: visit.base },
    { title: "Sign in", problem },
    html`${
        current === undefined
          ? null
          : html`<div class="notice" role="status">
              <p>
                This browser is signed in as <strong>${current.email}</strong>:
                <a href="${visit.base}">go on as ${current.email}</a>, sign out, or sign in as someone else below.
              </p>
              <form method="post" action="${visit.base}/sign-out">
                ${csrfField(current.csrf)}<button type="submit">Sign out</button>
              </form>
            </div>`
      }
      <p>Sign in with the email and password your administrator or company owner gave you.</p>
      ${form({
        action: `${visit.base}/sign-in`,
        csrf: formToken,
        state,
        submit: "Sign in",
        fields: [
          input({
            form: "sign-in",
            name: "email",
            label: "Email",
            type: "email",
            state,
            required: true,
            autocomplete: "username"
          }),
          input({
            form: "sign-in",
            name: "password",
            label: "Password",
            type: "password",
            state,
            required: true,
            autocomplete: "current-password"
          })
        ]
      })}`
  )

/** The sign-in form's token: the browser's, or a new one set with the answer. */
const formTokenOf = (visit: Visit) => {
  const current = visit.request.cookies[signInCookie]
  return current !== undefined && /^[A-Za-z0-9_-]{43}$/.test(current)
    ? { token: current, set: false }
    : { token: newFormToken(), set: true }
}

const cookieOptions = (visit: Visit) => ({ base: visit.base, secure: visit.secure })

const showSignIn = (base: Base) => (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const visit = yield* visitOf(request, base)
    // A session cookie is not followed into the panel from here: one planted by another site would keep
    // its victim in the planter's account. The form says who is signed in, and signing in replaces it.
    const current = Option.map(yield* signedIn(visit), (who) => ({
      email: who.user.email,
      csrf: who.session.csrf_token
    }))
    const { token, set } = formTokenOf(visit)
    return htmlAnswer(
      signInPage(visit, token, undefined, undefined, Option.getOrUndefined(current)),
      200,
      set ? { "set-cookie": setCookie(signInCookie, token, cookieOptions(visit)) } : {}
    )
  })

const signIn = (base: Base) => (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const visit = yield* visitOf(request, base)
    const fields = yield* readForm(request)
    const formToken = visit.request.cookies[signInCookie]
    if (!sameOrigin(request, visit.proxies)) return refused(visit, "origin")
    if (fields === undefined) return refused(visit, "form")
    if (!sameToken(field(fields, "csrf"), formToken)) return refused(visit, "token")
    const panel = yield* CompanyPanel.CompanyPanel
    const email = field(fields, "email")
    const attempt = yield* Effect.result(
      panel.signIn({ email, password: field(fields, "password"), address: visit.address })
    )
    if (Result.isSuccess(attempt)) {
      // Rotation: the session this browser had (if any) ends; only the new token is valid from now on.
      const previous = visit.request.cookies[sessionCookie]
      if (previous !== undefined && previous !== "") yield* panel.signOut(previous)
      // The form's own token has done its work: the browser keeps only the session's cookie.
      return HttpServerResponse.expireCookieUnsafe(
        seeOther(base, { "set-cookie": setCookie(sessionCookie, attempt.success.token, cookieOptions(visit)) }),
        signInCookie,
        { path: base, httpOnly: true, sameSite: "strict", secure: visit.secure }
      )
    }
    const failure = attempt.failure as { readonly _tag?: string; readonly retryAfterSeconds?: number }
    const state: FormState = { form: "sign-in", values: { email }, errors: {} }
    if (failure._tag === "SignInThrottled") {
      const wait = failure.retryAfterSeconds ?? 900
      return htmlAnswer(
        signInPage(
          visit,
          formToken!,
          state,
          `Too many failed sign-ins for this account or from this address. Try again in ${minutes(wait)} minute${minutes(wait) === 1 ? "" : "s"}.`
        ),
        429,
        { "retry-after": String(Math.ceil(wait)) }
      )
    }
    if (failure._tag === "SignInRefused")
      return htmlAnswer(signInPage(visit, formToken!, state, "The email or the password is wrong."), 401)
    return yield* Effect.fail(attempt.failure)
  })

/** Ends this browser's session. */
const signOut = (base: Base) =>
  action$(base, (visit) =>
    Effect.gen(function* () {
      const panel = yield* CompanyPanel.CompanyPanel
      yield* panel.signOut(visit.token)
      return seeOther(`${base}/sign-in`, { "set-cookie": clearCookie(sessionCookie, cookieOptions(visit)) })
    })
  )

/** Ends every session of the user, on every device. */
const signOutEverywhere = (base: Base) =>
  action$(base, (visit) =>
    Effect.gen(function* () {
      const panel = yield* CompanyPanel.CompanyPanel
      yield* panel.signOutEverywhere(visit.caller)
      return seeOther(`${base}/sign-in`, { "set-cookie": clearCookie(sessionCookie, cookieOptions(visit)) })
    })
  )

/** Adds the sign-in routes under `base`. */
export const addSignInRoutes = (router: PanelRouter, base: Base) =>
  Effect.all([
    router.add("GET", `${base}/sign-in`, showSignIn(base)),
    router.add("POST", `${base}/sign-in`, signIn(base)),
    router.add("POST", `${base}/sign-out`, signOut(base)),
    router.add("POST", `${base}/sign-out-everywhere`, signOutEverywhere(base))
  ])

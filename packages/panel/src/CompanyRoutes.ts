/**
 * The companies (administrators), a company's page (everyone who runs it) and what its forms change:
 * settings, scopes granted, new connections and locations.
 */
import { CompanyPanel } from "@catalog-sync/core"
import { Effect } from "effect"
import type { HttpServerResponse } from "effect/http"
import { companiesPage, companyPage } from "./CompanyPages.js"
import type { FormState } from "./Forms.js"
import { html } from "./Html.js"
import { type Base, page } from "./Layout.js"
import type { PanelRouter } from "./PanelRouter.js"
import { changeRefusal, failedForm, fieldErrors, isNotFound } from "./Outcome.js"
import {
  action$,
  field,
  type FormFields,
  fieldValues,
  htmlAnswer,
  notFound,
  page$,
  seeOther,
  type SignedIn
} from "./Visit.js"

/** Words separated by commas or spaces. */
const list = (text: string) => text.split(/[\s,]+/).filter((word) => word !== "")

/** A company's settings as the form sends them, in the shape the admin use cases take. */
const settingsOf = (fields: FormFields) => {
  const modules = fieldValues(fields, "modules")
  return {
    name: field(fields, "name"),
    currency: field(fields, "currency").trim(),
    main_language: field(fields, "main_language").trim(),
    languages: list(field(fields, "languages")),
    tax_model: field(fields, "tax_model"),
    tax_rates: list(field(fields, "tax_rates")),
    stock_package: modules.includes("stock_package"),
    inventory_module: modules.includes("inventory_module")
  }
}

/** The notices a page shows after a form succeeded, by the code its redirect names. */
export const notices: Readonly<Record<string, string>> = {
  "company-created": "The company was created.",
  "settings-saved": "The settings were saved.",
  "scopes-saved": "The scopes granted were saved.",
  "connection-created": "The connection was created.",
  "connection-renamed": "The connection was renamed.",
  "connection-enabled": "The connection was enabled: its keys work again.",
  "connection-disabled": "The connection was disabled: none of its keys works.",
  "location-created": "The location was created.",
  "location-assigned": "The connection's access to the location was saved.",
  "location-unassigned": "The connection no longer reads or writes that location's stock.",
  "key-revoked": "The key was revoked: it stops working at once.",
  "person-created": "The person was added. Give them their password in person or by another channel.",
  "person-enabled": "The person can sign in again.",
  "person-disabled": "The person was disabled and signed out everywhere."
}

/** The notice a page's `?done=` names, if it is one of `notices`. */
export const noticeOf = (visit: SignedIn): string | undefined => {
  const done = new URL(visit.request.url, "http://panel").searchParams.get("done")
  return done === null ? undefined : notices[done]
}

const frameOf = (visit: SignedIn) => ({ base: visit.base, user: visit.user, csrf: visit.session.csrf_token })

/** Runs a page's work; "not found for this user" becomes the 404 page. */
export const orNotFound = <E, R>(
  visit: SignedIn,
  work: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> =>
  Effect.catch(work, (error) =>
    isNotFound(error) ? Effect.succeed(notFound(visit, visit.user, visit.session.csrf_token)) : Effect.fail(error)
  )

/** The page for a change the panel refuses, saying why (409), with the way back to the company. */
const changeRefused = (visit: SignedIn, reason: string) => {
  const back = `${visit.base}/companies/${visit.params["company"] ?? ""}`
  return htmlAnswer(
    page(
      frameOf(visit),
      { title: "Change refused", problem: `Not changed: ${reason}.` },
      html`<p><a href="${back}">Back to the company</a></p>`
    ),
    409
  )
}

/**
 * Runs a form's change: on success a 303 to `done`; a refused value shows `again` with the form's
 * errors (422); not found for this user, the 404 page.
 */
export const submit = <A, E, R, E2, R2>(
  visit: SignedIn,
  change: Effect.Effect<A, E, R>,
  done: (result: A) => string,
  again: (state: FormState) => Effect.Effect<HttpServerResponse.HttpServerResponse, E2, R2>,
  form: string,
  fields: FormFields
) =>
  orNotFound(
    visit,
    Effect.catch(
      Effect.map(change, (result) => seeOther(done(result))),
      (error): Effect.Effect<HttpServerResponse.HttpServerResponse, E | E2, R2> => {
        const refusal = changeRefusal(error)
        if (refusal !== undefined) return Effect.succeed(changeRefused(visit, refusal))
        const errors = fieldErrors(error)
        return errors === undefined ? Effect.fail(error) : again(failedForm(form, fields, errors))
      }
    )
  )

const showCompanies = (visit: SignedIn, state?: FormState) =>
  Effect.gen(function* () {
    const panel = yield* CompanyPanel.CompanyPanel
    const companies = yield* panel.companies(visit.caller)
    return htmlAnswer(
      companiesPage(frameOf(visit), companies, { state, notice: noticeOf(visit) }),
      state === undefined ? 200 : 422
    )
  })

const showCompany = (visit: SignedIn, companyId: string, state?: FormState) =>
  Effect.gen(function* () {
    const panel = yield* CompanyPanel.CompanyPanel
    const view = yield* panel.overview(visit.caller, companyId)
    return htmlAnswer(
      companyPage(frameOf(visit), view, { state, notice: noticeOf(visit) }),
      state === undefined ? 200 : 422
    )
  })

const companyIdOf = (visit: SignedIn) => visit.params["company"] ?? ""

/** Adds the companies' routes under `base`. */
export const addCompanyRoutes = (router: PanelRouter, base: Base) => {
  const at = `${base}/companies` as const
  const home = page$(base, (visit) =>
    Effect.succeed(seeOther(visit.user.role === "admin" ? at : `${at}/${visit.user.company_id ?? ""}`))
  )
  const panel = CompanyPanel.CompanyPanel
  return Effect.all([
    // The router matches `/panel` and `/panel/` alike.
    router.add("GET", base, home),
    router.add(
      "GET",
      at,
      page$(base, (visit) => orNotFound(visit, showCompanies(visit)))
    ),
    router.add(
      "POST",
      at,
      action$(base, (visit, fields) =>
        Effect.flatMap(panel, (service) =>
          submit(
            visit,
            service.createCompany(visit.caller, {
              ...settingsOf(fields),
              storage_slug: field(fields, "storage_slug").trim(),
              granted_scopes: fieldValues(fields, "granted_scopes")
            }),
            (company) => `${at}/${company.id}?done=company-created`,
            (state) => showCompanies(visit, state),
            "company",
            fields
          )
        )
      )
    ),
    router.add(
      "GET",
      `${at}/:company`,
      page$(base, (visit) => orNotFound(visit, showCompany(visit, companyIdOf(visit))))
    ),
    router.add(
      "POST",
      `${at}/:company/settings`,
      action$(base, (visit, fields) =>
        Effect.flatMap(panel, (service) => {
          const id = companyIdOf(visit)
          return submit(
            visit,
            service.updateCompany(visit.caller, id, {
              ...settingsOf(fields),
              enabled: field(fields, "enabled") !== "false"
            }),
            () => `${at}/${id}?done=settings-saved`,
            (state) => showCompany(visit, id, state),
            "settings",
            fields
          )
        })
      )
    ),
    router.add(
      "POST",
      `${at}/:company/scopes`,
      action$(base, (visit, fields) =>
        Effect.flatMap(panel, (service) => {
          const id = companyIdOf(visit)
          return submit(
            visit,
            service.setScopes(visit.caller, id, fieldValues(fields, "granted_scopes")),
            () => `${at}/${id}?done=scopes-saved#scopes`,
            (state) => showCompany(visit, id, state),
            "scopes",
            fields
          )
        })
      )
    ),
    router.add(
      "POST",
      `${at}/:company/connections`,
      action$(base, (visit, fields) =>
        Effect.flatMap(panel, (service) => {
          const id = companyIdOf(visit)
          return submit(
            visit,
            service.createConnection(visit.caller, id, field(fields, "name")),
            (connection) => `${at}/${id}/connections/${connection.id}?done=connection-created`,
            (state) => showCompany(visit, id, state),
            "connection",
            fields
          )
        })
      )
    ),
    router.add(
      "POST",
      `${at}/:company/locations`,
      action$(base, (visit, fields) =>
        Effect.flatMap(panel, (service) => {
          const id = companyIdOf(visit)
          return submit(
            visit,
            service.createLocation(visit.caller, id, field(fields, "name")),
            () => `${at}/${id}?done=location-created#locations`,
            (state) => showCompany(visit, id, state),
            "location",
            fields
          )
        })
      )
    )
  ])
}

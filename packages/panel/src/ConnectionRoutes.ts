/**
 * A connection's page and its forms: rename, enable or disable, keys (created once per form, revoked),
 * location access (given, removed); a job.
 */
import { CompanyPanel } from "@catalog-sync/core"
import { Clock, Effect } from "effect"
import { noticeOf, orNotFound, submit } from "./CompanyRoutes.js"
import { connectionPage } from "./ConnectionPages.js"
import { jobPage } from "./JobPage.js"
import { keyAlreadyCreatedPage, keyCreatedPage } from "./KeyCreatedPage.js"
import type { FormState } from "./Forms.js"
import type { Base } from "./Layout.js"
import type { PanelRouter } from "./PanelRouter.js"
import { changeRefusal, failedForm, fieldErrors } from "./Outcome.js"
import { newFormToken } from "./Session.js"
import { action$, field, fieldValues, htmlAnswer, page$, type SignedIn } from "./Visit.js"

const frameOf = (visit: SignedIn) => ({ base: visit.base, user: visit.user, csrf: visit.session.csrf_token })
const ids = (visit: SignedIn) => ({
  company: visit.params["company"] ?? "",
  connection: visit.params["connection"] ?? ""
})

const showConnection = (visit: SignedIn, state?: FormState) =>
  Effect.gen(function* () {
    const panel = yield* CompanyPanel.CompanyPanel
    const { company, connection } = ids(visit)
    const view = yield* panel.connectionPage(visit.caller, company, connection)
    const now = yield* Clock.currentTimeMillis
    return htmlAnswer(
      connectionPage(frameOf(visit), view, { state, notice: noticeOf(visit), now, keyNonce: newFormToken() }),
      state === undefined ? 200 : 422
    )
  })

/** Adds the routes of a company's connections under `base`. */
export const addConnectionRoutes = (router: PanelRouter, base: Base) => {
  const at = `${base}/companies/:company/connections/:connection` as const
  const pageOf = (visit: SignedIn) => {
    const { company, connection } = ids(visit)
    return `${base}/companies/${company}/connections/${connection}`
  }
  const change = (
    path: `/${string}`,
    form: string,
    run: (
      panel: CompanyPanel.CompanyPanel["Service"],
      visit: SignedIn,
      fields: Parameters<Parameters<typeof action$>[1]>[1]
    ) => Effect.Effect<unknown, unknown, never>,
    done: string
  ) =>
    router.add(
      "POST",
      `${at}${path}`,
      action$(base, (visit, fields) =>
        Effect.flatMap(CompanyPanel.CompanyPanel, (panel) =>
          submit(
            visit,
            run(panel, visit, fields),
            () => `${pageOf(visit)}?done=${done}`,
            (state) => showConnection(visit, state),
            form,
            fields
          )
        )
      )
    )
  return Effect.all([
    router.add(
      "GET",
      at,
      page$(base, (visit) => orNotFound(visit, showConnection(visit)))
    ),
    change(
      "/name",
      "rename",
      (panel, visit, fields) => {
        const { company, connection } = ids(visit)
        return panel.renameConnection(visit.caller, company, connection, field(fields, "name"))
      },
      "connection-renamed"
    ),
    router.add(
      "POST",
      `${at}/enabled`,
      action$(base, (visit, fields) =>
        Effect.flatMap(CompanyPanel.CompanyPanel, (panel) => {
          const { company, connection } = ids(visit)
          const enabled = field(fields, "enabled") === "true"
          return submit(
            visit,
            panel.setConnectionEnabled(visit.caller, company, connection, enabled),
            () => `${pageOf(visit)}?done=${enabled ? "connection-enabled" : "connection-disabled"}`,
            (state) => showConnection(visit, state),
            "enabled",
            fields
          )
        })
      )
    ),
    change(
      "/keys/:key/revoke",
      "revoke",
      (panel, visit) => {
        const { company, connection } = ids(visit)
        return panel.revokeKey(visit.caller, company, connection, visit.params["key"] ?? "")
      },
      "key-revoked#keys"
    ),
    change(
      "/locations",
      "access",
      (panel, visit, fields) => {
        const { company, connection } = ids(visit)
        return panel.assignLocation(
          visit.caller,
          company,
          connection,
          field(fields, "location_id"),
          field(fields, "access") === "write"
        )
      },
      "location-assigned#locations"
    ),
    change(
      "/locations/:location/unassign",
      "unassign",
      (panel, visit) => {
        const { company, connection } = ids(visit)
        return panel.unassignLocation(visit.caller, company, connection, visit.params["location"] ?? "")
      },
      "location-unassigned#locations"
    ),
    // A new key's secret is the answer to the post itself: it is never stored, so no later page could show it.
    // The form's nonce makes the post create one key: sent again (a reload), it names the key made before.
    router.add(
      "POST",
      `${at}/keys`,
      action$(base, (visit, fields) =>
        orNotFound(
          visit,
          Effect.gen(function* () {
            const panel = yield* CompanyPanel.CompanyPanel
            const { company, connection } = ids(visit)
            const lifetime = field(fields, "lifetime_days").trim()
            const created = yield* Effect.result(
              panel.createKey(
                visit.caller,
                company,
                connection,
                {
                  name: field(fields, "name"),
                  scopes: fieldValues(fields, "scopes"),
                  lifetime_days: /^\d{1,6}$/.test(lifetime) ? Number(lifetime) : lifetime
                },
                field(fields, "nonce")
              )
            )
            if (created._tag === "Success") {
              const view = yield* panel.connectionPage(visit.caller, company, connection)
              return created.success._tag === "Created"
                ? htmlAnswer(keyCreatedPage(frameOf(visit), view, created.success), 201)
                : htmlAnswer(keyAlreadyCreatedPage(frameOf(visit), view, created.success.keyId))
            }
            const refusal = changeRefusal(created.failure)
            const errors =
              refusal === undefined ? fieldErrors(created.failure) : { "": `No key was created: ${refusal}.` }
            if (errors === undefined) return yield* Effect.fail(created.failure)
            return yield* showConnection(visit, failedForm("key", fields, errors))
          })
        )
      )
    ),
    router.add(
      "GET",
      `${at}/jobs/:job`,
      page$(base, (visit) =>
        orNotFound(
          visit,
          Effect.gen(function* () {
            const panel = yield* CompanyPanel.CompanyPanel
            const { company, connection } = ids(visit)
            const view = yield* panel.job(visit.caller, company, connection, visit.params["job"] ?? "")
            return htmlAnswer(jobPage(frameOf(visit), view))
          })
        )
      )
    )
  ])
}

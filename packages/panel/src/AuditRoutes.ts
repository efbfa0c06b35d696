/** The audit log: every change, who made it, when and from where; administrators read all of it, owners their company's. */
import { type AuditLog, CompanyPanel } from "@catalog-sync/core"
import { Effect } from "effect"
import { orNotFound } from "./CompanyRoutes.js"
import { html } from "./Html.js"
import { type Base, type PageFrame, page } from "./Layout.js"
import type { PanelRouter } from "./PanelRouter.js"
import { htmlAnswer, page$, type SignedIn } from "./Visit.js"

const frameOf = (visit: SignedIn) => ({ base: visit.base, user: visit.user, csrf: visit.session.csrf_token })

/** The entry a page of the log starts before (`?before=<entry id>`, the last of the previous page). */
const beforeOf = (visit: SignedIn): string | undefined =>
  new URL(visit.request.url, "http://panel").searchParams.get("before") ?? undefined

const auditPage = (
  frame: PageFrame,
  company: { readonly id: string; readonly name: string } | undefined,
  entries: ReadonlyArray<AuditLog.AuditEntry>,
  here: string
) =>
  page(
    frame,
    {
      title: company === undefined ? "Audit log" : `Audit log of ${company.name}`,
      crumbs:
        company === undefined
          ? []
          : [
              ...(frame.user?.role === "admin" ? [{ label: "Companies", href: `${frame.base}/companies` }] : []),
              { label: company.name, href: `${frame.base}/companies/${company.id}` },
              { label: "Audit log" }
            ]
    },
    entries.length === 0
      ? html`<p>Nothing recorded yet.</p>`
      : html`<div class="table">
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">What</th>
                  <th scope="col">Target</th>
                  <th scope="col">From</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                ${entries.map(
                  (entry) =>
                    html`<tr>
                      <td>${entry.at}</td>
                      <td>${entry.actor}</td>
                      <td>${entry.action}</td>
                      <td>${entry.target ?? ""}</td>
                      <td>${entry.address ?? ""}</td>
                      <td>
                        ${Object.entries(entry.details)
                          .map(([name, value]) => `${name}: ${value}`)
                          .join("; ")}
                      </td>
                    </tr>`
                )}
              </tbody>
            </table>
          </div>
          ${
            entries.length < CompanyPanel.auditPageSize
              ? null
              : html`<p><a href="${here}?before=${entries[entries.length - 1]!.id}">Older entries</a></p>`
          }`
  )

/** Adds the audit log's routes under `base`: the platform's and a company's. */
export const addAuditRoutes = (router: PanelRouter, base: Base) =>
  Effect.all([
    router.add(
      "GET",
      `${base}/companies/:company/audit`,
      page$(base, (visit) =>
        orNotFound(
          visit,
          Effect.gen(function* () {
            const panel = yield* CompanyPanel.CompanyPanel
            const id = visit.params["company"] ?? ""
            const entries = yield* panel.auditLog(visit.caller, id, beforeOf(visit))
            const company = yield* panel.company(visit.caller, id)
            return htmlAnswer(auditPage(frameOf(visit), company, entries, `${base}/companies/${company.id}/audit`))
          })
        )
      )
    ),
    router.add(
      "GET",
      `${base}/audit`,
      page$(base, (visit) =>
        orNotFound(
          visit,
          Effect.gen(function* () {
            const panel = yield* CompanyPanel.CompanyPanel
            const entries = yield* panel.auditLog(visit.caller, null, beforeOf(visit))
            return htmlAnswer(auditPage(frameOf(visit), undefined, entries, `${base}/audit`))
          })
        )
      )
    )
  ])

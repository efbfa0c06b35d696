/** A job of a connection, with an import's report. */
import type { JobAdmin } from "@catalog-sync/core"
import { html } from "./Html.js"
import type { PageFrame } from "./Layout.js"
import { page } from "./Layout.js"
import { type ConnectionView, crumbs } from "./ConnectionPages.js"

/** One job, with an import's counts and failed records. */
export const jobPage = (
  frame: PageFrame,
  view: Pick<ConnectionView, "company" | "connection"> & { readonly job: JobAdmin.AdminJobDetail }
) => {
  const { job } = view
  return page(
    frame,
    { title: `Job ${job.id.slice(0, 8)}`, crumbs: crumbs(frame, view, `Job ${job.id.slice(0, 8)}`) },
    html`<dl class="facts">
        <dt>Kind</dt>
        <dd>${job.kind}</dd>
        <dt>State</dt>
        <dd>${job.state}</dd>
        <dt>Runs</dt>
        <dd>${job.run}</dd>
        <dt>Created</dt>
        <dd>${job.created_at}</dd>
        <dt>Finished</dt>
        <dd>${job.finished_at ?? "not yet"}</dd>
        ${
          job.failure === null
            ? null
            : html`<dt>Failure</dt>
                <dd>${job.failure.code}: ${job.failure.message}</dd>`
        }
      </dl>
      ${
        job.report === null
          ? null
          : html`<h2>Import report</h2>
              <dl class="facts">
                ${Object.entries(job.report.counts).map(
                  ([name, count]) =>
                    html`<dt>${name}</dt>
                      <dd>${count}</dd>`
                )}
              </dl>
              ${
                job.report.failed_records.length === 0
                  ? html`<p>No record failed.</p>`
                  : html`<div class="table">
                      <table>
                        <thead>
                          <tr>
                            <th scope="col">Index</th>
                            <th scope="col">Resource</th>
                            <th scope="col">External id</th>
                            <th scope="col">Error</th>
                          </tr>
                        </thead>
                        <tbody>
                          ${job.report.failed_records.map(
                            (r) =>
                              html`<tr>
                                <td>${r.index}</td>
                                <td>${r.resource}</td>
                                <td>${r.external_id ?? ""}</td>
                                <td><code>${JSON.stringify(r.error)}</code></td>
                              </tr>`
                          )}
                        </tbody>
                      </table>
                    </div>`
              }`
      }`
  )
}

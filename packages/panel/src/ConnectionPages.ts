/**
 * A connection's page: rename, enable or disable, keys, locations, jobs, failed media, its place in the
 * change feed, its keys' and its company's requests in the current rate-limit minute.
 */
import type { CompanyPanel, JobAdmin } from "@catalog-sync/core"
import type { Effect } from "effect"
import { checkboxes, form, type FormState, input, select, stateOf } from "./Forms.js"
import { html } from "./Html.js"
import { type PageFrame, page } from "./Layout.js"

/** What `CompanyPanel.connectionPage` returns. */
export type ConnectionView = Effect.Success<ReturnType<CompanyPanel.CompanyPanel["Service"]["connectionPage"]>>

const keyState = (key: ConnectionView["keys"][number], now: number) =>
  key.revoked_at !== null ? "revoked" : Date.parse(key.expires_at) <= now ? "expired" : "active"

/** The trail to a connection's page, or to a page under it named `last`. */
export const crumbs = (frame: PageFrame, view: Pick<ConnectionView, "company" | "connection">, last?: string) => {
  const company = `${frame.base}/companies/${view.company.id}`
  return [
    ...(frame.user?.role === "admin" ? [{ label: "Companies", href: `${frame.base}/companies` }] : []),
    { label: view.company.name, href: company },
    last === undefined
      ? { label: view.connection.name }
      : { label: view.connection.name, href: `${company}/connections/${view.connection.id}` },
    ...(last === undefined ? [] : [{ label: last }])
  ]
}

/** A bucket's use as the page says it: "3 of 120". */
const useOf = (use: { readonly used: number; readonly limit: number }) => `${use.used} of ${use.limit}`

const jobRows = (at: string, jobs: ReadonlyArray<JobAdmin.AdminJobView>) =>
  html`<div class="table">
    <table>
      <thead>
        <tr>
          <th scope="col">Job</th>
          <th scope="col">Kind</th>
          <th scope="col">State</th>
          <th scope="col">Updated</th>
        </tr>
      </thead>
      <tbody>
        ${jobs.map(
          (job) =>
            html`<tr>
              <td><a href="${at}/jobs/${job.id}">${job.id.slice(0, 8)}</a></td>
              <td>${job.kind}</td>
              <td>${job.state}${job.failure === null ? "" : ` (${job.failure.code})`}</td>
              <td>${job.updated_at}</td>
            </tr>`
        )}
      </tbody>
    </table>
  </div>`

export const connectionPage = (
  frame: PageFrame,
  view: ConnectionView,
  options: {
    readonly state?: FormState | undefined
    readonly notice?: string | undefined
    readonly now: number
    /** The key form's one-time token: a second post of the same form creates no second key. */
    readonly keyNonce: string
  }
) => {
  const at = `${frame.base}/companies/${view.company.id}/connections/${view.connection.id}`
  const rename = stateOf(options.state, "rename")
  const key = stateOf(options.state, "key")
  const access = stateOf(options.state, "access")
  const assigned = new Map(view.assignments.map((a) => [a.location_id, a.writable ? "write" : "read"]))
  return page(
    frame,
    { title: view.connection.name, crumbs: crumbs(frame, view), notice: options.notice },
    html`<dl class="facts">
        <dt>Status</dt>
        <dd>${view.connection.enabled ? "enabled" : "disabled: none of its keys works"}</dd>
        <dt>Connection id</dt>
        <dd><code>${view.connection.id}</code></dd>
        <dt>Change feed</dt>
        <dd>the company's feed is at position ${view.feedHead}; the connection reads it from its own cursor</dd>
        <dt>Requests this minute</dt>
        <dd>
          ${useOf(view.rateUse.company)} for the company's keys together (each key's are in the keys' table); the minute
          ends in ${view.rateUse.company.resetSeconds} s
        </dd>
      </dl>
      ${form({
        action: `${at}/name`,
        csrf: frame.csrf,
        state: rename,
        submit: "Rename",
        heading: "Rename the connection",
        fields: input({
          form: "rename",
          name: "name",
          label: "Name",
          state: rename,
          value: view.connection.name,
          required: true
        })
      })}
      ${form({
        action: `${at}/enabled`,
        csrf: frame.csrf,
        state: undefined,
        submit: view.connection.enabled ? "Disable the connection" : "Enable the connection",
        heading: view.connection.enabled ? "Disable the connection" : "Enable the connection",
        danger: view.connection.enabled,
        fields: html`<input type="hidden" name="enabled" value="${view.connection.enabled ? "false" : "true"}" />`
      })}
      <h2 id="keys">API keys</h2>
      ${
        view.keys.length === 0
          ? html`<p>No key yet.</p>`
          : html`<div class="table">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Key id</th>
                    <th scope="col">Scopes</th>
                    <th scope="col">Expires</th>
                    <th scope="col">State</th>
                    <th scope="col">Requests this minute</th>
                    <th scope="col">Action</th>
                  </tr>
                </thead>
                <tbody>
                  ${view.keys.map((k) => {
                    const state = keyState(k, options.now)
                    const use = view.rateUse.keys.get(k.id)
                    return html`<tr>
                      <td>${k.name === "" ? "(no name)" : k.name}</td>
                      <td><code>${k.id}</code></td>
                      <td>${k.scopes.join(", ")}</td>
                      <td>${k.expires_at.slice(0, 10)}</td>
                      <td>${state}</td>
                      <td>${use === undefined ? "-" : useOf(use)}</td>
                      <td>
                        ${
                          state === "active"
                            ? form({
                                action: `${at}/keys/${k.id}/revoke`,
                                csrf: frame.csrf,
                                state: undefined,
                                submit: "Revoke",
                                heading: `Revoke key ${k.name === "" ? k.id : k.name}`,
                                danger: true,
                                bare: true,
                                fields: []
                              })
                            : null
                        }
                      </td>
                    </tr>`
                  })}
                </tbody>
              </table>
            </div>`
      }
      ${
        view.company.granted_scopes.length === 0
          ? html`<p>The company has no scope granted yet, so no key can be created. An administrator grants scopes.</p>`
          : form({
              action: `${at}/keys`,
              csrf: frame.csrf,
              state: key,
              submit: "Create the key",
              heading: "Create a key",
              fields: [
                html`<input type="hidden" name="nonce" value="${options.keyNonce}" />`,
                input({
                  form: "key",
                  name: "name",
                  label: "Key name",
                  hint: "Optional: where the key is used",
                  state: key
                }),
                checkboxes({
                  form: "key",
                  name: "scopes",
                  legend: "Scopes",
                  hint: "Only the scopes granted to the company",
                  state: key,
                  checked: [],
                  choices: view.company.granted_scopes.map((scope) => [scope, scope] as const)
                }),
                input({
                  form: "key",
                  name: "lifetime_days",
                  label: "Valid for (days)",
                  hint: "1 to 365; the key stops working after",
                  type: "number",
                  state: key,
                  value: "30",
                  required: true
                })
              ]
            })
      }
      <h2 id="locations">Stock locations</h2>
      ${
        view.locations.length === 0
          ? html`<p>The company has no stock location.</p>`
          : html`<div class="table">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Location</th>
                      <th scope="col">Access</th>
                      <th scope="col">Action</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${view.locations.map(
                      (l) =>
                        html`<tr>
                          <td>${l.name}</td>
                          <td>
                            ${assigned.get(l.id) === "write" ? "reads and writes" : assigned.has(l.id) ? "reads" : "none"}
                          </td>
                          <td>
                            ${
                              assigned.has(l.id)
                                ? form({
                                    action: `${at}/locations/${l.id}/unassign`,
                                    csrf: frame.csrf,
                                    state: undefined,
                                    submit: "Remove access",
                                    heading: `Remove the access to ${l.name}`,
                                    danger: true,
                                    bare: true,
                                    fields: []
                                  })
                                : null
                            }
                          </td>
                        </tr>`
                    )}
                  </tbody>
                </table>
              </div>
              ${form({
                action: `${at}/locations`,
                csrf: frame.csrf,
                state: access,
                submit: "Save the access",
                heading: "Access to a location",
                fields: [
                  select({
                    form: "access",
                    name: "location_id",
                    label: "Location",
                    state: access,
                    value: view.locations[0]?.id ?? "",
                    choices: view.locations.map((l) => [l.id, l.name] as const)
                  }),
                  select({
                    form: "access",
                    name: "access",
                    label: "Access",
                    state: access,
                    value: "write",
                    choices: [
                      ["read", "Reads the stock"],
                      ["write", "Reads and writes the stock"]
                    ]
                  })
                ]
              })}`
      }
      <h2 id="jobs">Jobs and import reports</h2>
      ${view.jobs.length === 0 ? html`<p>No job yet.</p>` : jobRows(at, view.jobs)}
      <h2 id="failed-media">Failed media</h2>
      ${view.failedMedia.length === 0 ? html`<p>No failed image.</p>` : jobRows(at, view.failedMedia)}`
  )
}

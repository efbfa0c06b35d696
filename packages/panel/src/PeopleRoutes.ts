/** A company's people: listed and added by administrators and the company's owners, disabled and enabled again. */
import { CompanyPanel, type PanelUser as PanelUserModule } from "@catalog-sync/core"
import { Effect } from "effect"
import { noticeOf, orNotFound, submit } from "./CompanyRoutes.js"
import { form, type FormState, input, select, stateOf } from "./Forms.js"
import { html } from "./Html.js"
import { type Base, type PageFrame, page } from "./Layout.js"
import type { PanelRouter } from "./PanelRouter.js"
import { action$, field, htmlAnswer, page$, type SignedIn } from "./Visit.js"

type PanelUser = PanelUserModule.PanelUser

const frameOf = (visit: SignedIn) => ({ base: visit.base, user: visit.user, csrf: visit.session.csrf_token })

const peoplePage = (
  frame: PageFrame,
  company: { readonly id: string; readonly name: string },
  members: ReadonlyArray<PanelUser>,
  options: { readonly state?: FormState | undefined; readonly notice?: string | undefined }
) => {
  const at = `${frame.base}/companies/${company.id}`
  const state = stateOf(options.state, "person")
  return page(
    frame,
    {
      title: `People of ${company.name}`,
      crumbs: [
        ...(frame.user?.role === "admin" ? [{ label: "Companies", href: `${frame.base}/companies` }] : []),
        { label: company.name, href: at },
        { label: "People" }
      ],
      notice: options.notice
    },
    html`${
        members.length === 0
          ? html`<p>No one yet.</p>`
          : html`<div class="table">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Email</th>
                    <th scope="col">Role</th>
                    <th scope="col">Status</th>
                    <th scope="col">Action</th>
                  </tr>
                </thead>
                <tbody>
                  ${members.map(
                    (member) =>
                      html`<tr>
                        <td>${member.name}</td>
                        <td>${member.email}</td>
                        <td>${member.role}</td>
                        <td>${member.enabled ? "enabled" : "disabled"}</td>
                        <td>
                          ${
                            member.id === frame.user?.id
                              ? "(you)"
                              : form({
                                  action: `${at}/people/${member.id}/enabled`,
                                  csrf: frame.csrf,
                                  state: undefined,
                                  submit: member.enabled ? "Disable" : "Enable",
                                  heading: `${member.enabled ? "Disable" : "Enable"} ${member.email}`,
                                  danger: member.enabled,
                                  bare: true,
                                  fields: html`<input
                                    type="hidden"
                                    name="enabled"
                                    value="${member.enabled ? "false" : "true"}"
                                  />`
                                })
                          }
                        </td>
                      </tr>`
                  )}
                </tbody>
              </table>
            </div>`
      }
      <h2 id="add-person">Add a person</h2>
      ${form({
        action: `${at}/people`,
        csrf: frame.csrf,
        state,
        submit: "Add the person",
        heading: "Add a person",
        fields: [
          input({ form: "person", name: "name", label: "Name", state, required: true }),
          input({
            form: "person",
            name: "email",
            label: "Email",
            type: "email",
            state,
            required: true,
            autocomplete: "off"
          }),
          select({
            form: "person",
            name: "role",
            label: "Role",
            state,
            value: "manager",
            choices: [
              ["manager", "Manager: connections, keys and locations"],
              ["owner", "Owner: also the company's people and audit log"]
            ]
          }),
          input({
            form: "person",
            name: "password",
            label: "Password",
            type: "password",
            hint: "At least 12 characters; give it to them by another channel",
            state,
            required: true,
            autocomplete: "new-password"
          })
        ]
      })}`
  )
}

const showPeople = (visit: SignedIn, state?: FormState) =>
  Effect.gen(function* () {
    const panel = yield* CompanyPanel.CompanyPanel
    const id = visit.params["company"] ?? ""
    const members = yield* panel.listPeople(visit.caller, id)
    const company = yield* panel.company(visit.caller, id)
    return htmlAnswer(
      peoplePage(frameOf(visit), company, members, { state, notice: noticeOf(visit) }),
      state === undefined ? 200 : 422
    )
  })

/** Adds the people routes under `base`. */
export const addPeopleRoutes = (router: PanelRouter, base: Base) => {
  const at = `${base}/companies/:company` as const
  const companyPage = (visit: SignedIn) => `${base}/companies/${visit.params["company"] ?? ""}`
  return Effect.all([
    router.add(
      "GET",
      `${at}/people`,
      page$(base, (visit) => orNotFound(visit, showPeople(visit)))
    ),
    router.add(
      "POST",
      `${at}/people`,
      action$(base, (visit, fields) =>
        Effect.flatMap(CompanyPanel.CompanyPanel, (panel) =>
          submit(
            visit,
            panel.createPerson(visit.caller, visit.params["company"] ?? "", {
              email: field(fields, "email"),
              name: field(fields, "name"),
              password: field(fields, "password"),
              role: field(fields, "role")
            }),
            () => `${companyPage(visit)}/people?done=person-created`,
            (state) => showPeople(visit, state),
            "person",
            fields
          )
        )
      )
    ),
    router.add(
      "POST",
      `${at}/people/:user/enabled`,
      action$(base, (visit, fields) =>
        Effect.flatMap(CompanyPanel.CompanyPanel, (panel) => {
          const enabled = field(fields, "enabled") === "true"
          return submit(
            visit,
            panel.setPersonEnabled(visit.caller, visit.params["company"] ?? "", visit.params["user"] ?? "", enabled),
            () => `${companyPage(visit)}/people?done=${enabled ? "person-enabled" : "person-disabled"}`,
            (state) => showPeople(visit, state),
            "enabled",
            fields
          )
        })
      )
    )
  ])
}

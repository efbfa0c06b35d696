/** The administrator's pages: the list of companies with the form that creates one, and a company's page. */
import {
  type Accounts,
  type Company as CompanyModule,
  type PanelUser as PanelUserModule,
  Scope
} from "@catalog-sync/core"
import { checkboxes, form, type FormState, input, select, stateOf } from "./Forms.js"
import { type Html, html } from "./Html.js"
import { type PageFrame, page } from "./Layout.js"

type Company = CompanyModule.Company
type Connection = CompanyModule.Connection
type Location = Accounts.Location
type PanelUser = PanelUserModule.PanelUser

const scopeChoices = Scope.all.map((scope) => [scope, scope] as const)
const taxModels = [
  ["unconfigured", "Not configured yet"],
  ["inclusive", "Prices include tax"],
  ["exclusive", "Prices exclude tax"],
  ["none", "No tax"]
] as const

const yesNo = (value: boolean) => (value ? "yes" : "no")

/** The fields a company's settings form and the creation form share. */
const settingsFields = (name: string, state: FormState | undefined, company?: Company): ReadonlyArray<Html> => [
  input({ form: name, name: "name", label: "Name", state, value: company?.name ?? "", required: true }),
  input({
    form: name,
    name: "currency",
    label: "Currency",
    hint: "ISO 4217 code, such as EUR",
    state,
    value: company?.currency ?? "EUR",
    required: true
  }),
  input({
    form: name,
    name: "main_language",
    label: "Main language",
    hint: "Such as en or de",
    state,
    value: company?.main_language ?? "en",
    required: true
  }),
  input({
    form: name,
    name: "languages",
    label: "Other languages",
    hint: "Codes separated by commas, such as de, fr",
    state,
    value: company?.languages.filter((l) => l !== company.main_language).join(", ") ?? ""
  }),
  select({
    form: name,
    name: "tax_model",
    label: "Tax model",
    state,
    value: company?.tax_model ?? "unconfigured",
    choices: taxModels
  }),
  input({
    form: name,
    name: "tax_rates",
    label: "Tax rates",
    hint: "Percentages separated by commas, such as 24.00, 10.00",
    state,
    value: company?.tax_rates.join(", ") ?? ""
  }),
  checkboxes({
    form: name,
    name: "modules",
    legend: "Modules",
    state,
    checked: [
      company?.stock_package === true ? "stock_package" : "",
      company?.inventory_module === true ? "inventory_module" : ""
    ],
    choices: [
      ["stock_package", "Stock package"],
      ["inventory_module", "Inventory module"]
    ]
  })
]

export const companiesPage = (
  frame: PageFrame,
  companies: ReadonlyArray<Company>,
  options: { readonly state?: FormState | undefined; readonly notice?: string | undefined } = {}
) => {
  const state = stateOf(options.state, "company")
  return page(
    frame,
    { title: "Companies", notice: options.notice },
    html`${
        companies.length === 0
          ? html`<p>No company yet: create the first below.</p>`
          : html`<div class="table">
              <table>
                <caption class="skip">
                  Companies
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Enabled</th>
                    <th scope="col">Currency</th>
                    <th scope="col">Scopes granted</th>
                  </tr>
                </thead>
                <tbody>
                  ${companies.map(
                    (company) =>
                      html`<tr>
                        <td><a href="${frame.base}/companies/${company.id}">${company.name}</a></td>
                        <td>${yesNo(company.enabled)}</td>
                        <td>${company.currency}</td>
                        <td>${company.granted_scopes.length}</td>
                      </tr>`
                  )}
                </tbody>
              </table>
            </div>`
      }
      <h2 id="create-company">Create a company</h2>
      ${form({
        action: `${frame.base}/companies`,
        csrf: frame.csrf,
        state,
        submit: "Create the company",
        heading: "Create a company",
        fields: [
          ...settingsFields("company", state),
          input({
            form: "company",
            name: "storage_slug",
            label: "Storage folder",
            hint: "2 to 63 lower-case letters, digits or dashes; never changes",
            state,
            required: true
          }),
          checkboxes({
            form: "company",
            name: "granted_scopes",
            legend: "Scopes granted",
            state,
            checked: [],
            choices: scopeChoices
          })
        ]
      })}`
  )
}

/** What a company's page shows, for an administrator, owner or manager. */
export interface CompanyView {
  readonly company: Company
  readonly connections: ReadonlyArray<Connection>
  readonly locations: ReadonlyArray<Location>
  readonly managesPeople: boolean
  readonly readsAudit: boolean
}

export const companyPage = (
  frame: PageFrame & { readonly user: PanelUser },
  view: CompanyView,
  options: { readonly state?: FormState | undefined; readonly notice?: string | undefined } = {}
) => {
  const { company } = view
  const at = `${frame.base}/companies/${company.id}`
  const admin = frame.user.role === "admin"
  const settings = stateOf(options.state, "settings")
  const grants = stateOf(options.state, "scopes")
  const connection = stateOf(options.state, "connection")
  const location = stateOf(options.state, "location")
  return page(
    frame,
    {
      title: company.name,
      crumbs: admin ? [{ label: "Companies", href: `${frame.base}/companies` }, { label: company.name }] : [],
      notice: options.notice,
      problem:
        company.enabled || admin
          ? undefined
          : "This company is disabled: its connections, keys, locations and people cannot be changed here (a key can still be revoked). Its platform administrator can enable it again."
    },
    html`<dl class="facts">
        <dt>Enabled</dt>
        <dd>${yesNo(company.enabled)}</dd>
        <dt>Currency</dt>
        <dd>${company.currency}</dd>
        <dt>Languages</dt>
        <dd>${company.languages.join(", ")}</dd>
        <dt>Tax</dt>
        <dd>${company.tax_model}${company.tax_rates.length > 0 ? ` (${company.tax_rates.join(", ")})` : ""}</dd>
        <dt>Scopes granted</dt>
        <dd>${company.granted_scopes.length === 0 ? "none" : company.granted_scopes.join(", ")}</dd>
        <dt>Company id</dt>
        <dd><code>${company.id}</code></dd>
      </dl>
      <p>
        ${view.managesPeople ? html`<a href="${at}/people">People of the company</a>` : null}${
          view.managesPeople && view.readsAudit ? " · " : ""
        }${view.readsAudit ? html`<a href="${at}/audit">Audit log</a>` : null}
      </p>
      <h2 id="connections">Connections</h2>
      ${
        view.connections.length === 0
          ? html`<p>No connection yet. Create one for each system that sends or reads data.</p>`
          : html`<ul>
              ${view.connections.map(
                (c) => html`<li><a href="${at}/connections/${c.id}">${c.name}</a>${c.enabled ? "" : " (disabled)"}</li>`
              )}
            </ul>`
      }
      ${form({
        action: `${at}/connections`,
        csrf: frame.csrf,
        state: connection,
        submit: "Create the connection",
        heading: "Create a connection",
        fields: input({
          form: "connection",
          name: "name",
          label: "New connection's name",
          hint: "The source system, such as ERP",
          state: connection,
          required: true
        })
      })}
      <h2 id="locations">Stock locations</h2>
      ${
        view.locations.length === 0
          ? html`<p>No location yet.</p>`
          : html`<ul>
              ${view.locations.map((l) => html`<li>${l.name}</li>`)}
            </ul>`
      }
      ${form({
        action: `${at}/locations`,
        csrf: frame.csrf,
        state: location,
        submit: "Create the location",
        heading: "Create a stock location",
        fields: input({ form: "location", name: "name", label: "New location's name", state: location, required: true })
      })}
      ${
        admin
          ? html`<h2 id="scopes">Scopes granted</h2>
              ${form({
                action: `${at}/scopes`,
                csrf: frame.csrf,
                state: grants,
                submit: "Save the scopes",
                heading: "Scopes granted",
                fields: checkboxes({
                  form: "scopes",
                  name: "granted_scopes",
                  legend: "Scopes the company's keys may hold",
                  state: grants,
                  checked: company.granted_scopes,
                  choices: scopeChoices
                })
              })}
              <h2 id="settings">Settings</h2>
              ${form({
                action: `${at}/settings`,
                csrf: frame.csrf,
                state: settings,
                submit: "Save the settings",
                heading: "Company settings",
                fields: [
                  ...settingsFields("settings", settings, company),
                  select({
                    form: "settings",
                    name: "enabled",
                    label: "Status",
                    state: settings,
                    value: company.enabled ? "true" : "false",
                    choices: [
                      ["true", "Enabled"],
                      ["false", "Disabled: every key stops working"]
                    ]
                  })
                ]
              })}`
          : null
      }`
  )
}

/** The frame of every panel page: head with the style sheet, skip link, header with navigation and sign-out, main. */
import type { PanelUser as PanelUserModule } from "@catalog-sync/core"
import { script, stylesheet } from "./Assets.js"
import { type Html, html, type Interpolated } from "./Html.js"

type PanelUser = PanelUserModule.PanelUser

/** Where the panel is mounted: a path such as `/panel`. */
export type Base = `/${string}`

/** A step of the breadcrumb trail: its label and link (the current page has none). */
export interface Crumb {
  readonly label: string
  readonly href?: string
}

/** What a page is rendered with: where the panel is mounted, who is signed in and their session's form token. */
export interface PageFrame {
  readonly base: Base
  readonly user?: PanelUser | undefined
  readonly csrf?: string | undefined
}

/** A hidden field carrying the session's form token: every state-changing form has one. */
export const csrfField = (csrf: string | undefined): Html =>
  html`<input type="hidden" name="csrf" value="${csrf ?? ""}" />`

const roleNames = { admin: "platform administrator", owner: "owner", manager: "manager" } as const

const navigation = (frame: PageFrame, user: PanelUser) => {
  const links: ReadonlyArray<Interpolated> =
    user.role === "admin"
      ? [
          html`<li><a href="${frame.base}/companies">Companies</a></li>`,
          html`<li><a href="${frame.base}/audit">Audit log</a></li>`
        ]
      : [
          html`<li><a href="${frame.base}/companies/${user.company_id ?? ""}">Company</a></li>`,
          user.role === "owner"
            ? [
                html`<li><a href="${frame.base}/companies/${user.company_id ?? ""}/people">People</a></li>`,
                html`<li><a href="${frame.base}/companies/${user.company_id ?? ""}/audit">Audit log</a></li>`
              ]
            : []
        ]
  return html`<nav aria-label="Main">
      <ul>
        ${links}
      </ul>
    </nav>
    <div>
      <span>${user.name} (${roleNames[user.role]})</span>
      <form method="post" action="${frame.base}/sign-out">
        ${csrfField(frame.csrf)}<button type="submit" class="link">Sign out</button>
      </form>
      <form method="post" action="${frame.base}/sign-out-everywhere">
        ${csrfField(frame.csrf)}<button type="submit" class="link">Sign out everywhere</button>
      </form>
    </div>`
}

/** A whole page: `title` is the document's title and its one h1; `body` follows the h1. */
export const page = (
  frame: PageFrame,
  options: {
    readonly title: string
    readonly crumbs?: ReadonlyArray<Crumb>
    readonly notice?: string | undefined
    readonly problem?: string | undefined
    readonly scripted?: boolean
  },
  body: Interpolated
): Html =>
  html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${options.title} · Company panel</title>
        <link rel="stylesheet" href="${frame.base}/${stylesheet.path}" />
        ${options.scripted === true ? html`<script src="${frame.base}/${script.path}" defer></script>` : null}
      </head>
      <body>
        <a class="skip" href="#main">Skip to the content</a>
        <header class="top">
          <a class="brand" href="${frame.base}">Company panel</a>
          ${frame.user === undefined ? null : navigation(frame, frame.user)}
        </header>
        <main id="main">
          ${
            options.crumbs === undefined || options.crumbs.length === 0
              ? null
              : html`<nav class="crumbs" aria-label="Breadcrumb">
                  <ol>
                    ${options.crumbs.map((crumb) =>
                      crumb.href === undefined
                        ? html`<li aria-current="page">${crumb.label}</li>`
                        : html`<li><a href="${crumb.href}">${crumb.label}</a></li>`
                    )}
                  </ol>
                </nav>`
          }
          <h1>${options.title}</h1>
          ${options.notice === undefined ? null : html`<p class="notice" role="status">${options.notice}</p>`}
          ${options.problem === undefined ? null : html`<p class="problem" role="alert">${options.problem}</p>`} ${body}
        </main>
      </body>
    </html> `

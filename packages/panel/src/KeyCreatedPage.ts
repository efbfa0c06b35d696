/** The page that shows a new key's secret, once; and the page for the same form sent again. */
import { html } from "./Html.js"
import type { PageFrame } from "./Layout.js"
import { page } from "./Layout.js"
import { type ConnectionView, crumbs } from "./ConnectionPages.js"

/** The new key's secret, shown this once; the page is not stored by any cache. */
export const keyCreatedPage = (
  frame: PageFrame,
  view: Pick<ConnectionView, "company" | "connection">,
  created: {
    readonly token: string
    readonly key: { readonly id: string; readonly scopes: ReadonlyArray<string>; readonly expires_at: string }
  }
) => {
  const at = `${frame.base}/companies/${view.company.id}/connections/${view.connection.id}`
  return page(
    frame,
    { title: "Key created", crumbs: crumbs(frame, view, "Key created"), scripted: true },
    html`<section class="card" aria-labelledby="secret-label">
        <p id="secret-label">
          <strong>Copy the key now.</strong> It is shown this once and never again: only its hash is kept.
        </p>
        <code class="secret" id="secret">${created.token}</code>
        <button type="button" class="secondary" data-copy="secret" data-status="copy-status" hidden>
          Copy the key
        </button>
        <p id="copy-status" role="status"></p>
      </section>
      <dl class="facts">
        <dt>Key id</dt>
        <dd><code>${created.key.id}</code></dd>
        <dt>Scopes</dt>
        <dd>${created.key.scopes.join(", ")}</dd>
        <dt>Expires</dt>
        <dd>${created.key.expires_at}</dd>
      </dl>
      <p><a href="${at}#keys">Back to the connection</a></p>`
  )
}

/** The answer to a key form sent a second time (a reload): the key it made, whose secret is gone. */
export const keyAlreadyCreatedPage = (
  frame: PageFrame,
  view: Pick<ConnectionView, "company" | "connection">,
  keyId: string
) => {
  const at = `${frame.base}/companies/${view.company.id}/connections/${view.connection.id}`
  return page(
    frame,
    { title: "Key already created", crumbs: crumbs(frame, view, "Key already created") },
    html`<p>
        This form has already created a key; its secret was shown once, when it was created, and cannot be shown again.
        If it was not copied, revoke the key and create a new one.
      </p>
      <dl class="facts">
        <dt>Key id</dt>
        <dd><code>${keyId}</code></dd>
      </dl>
      <p><a href="${at}#keys">Back to the connection</a></p>`
  )
}

/**
 * What answers the panel's other addresses. A GET of an address that only takes form posts (a reload or
 * bookmark of the page a post answered, such as a new key's) goes to the page the form is on; every other
 * path under the panel, in any method, gets the panel's own "Not found" page, not the API's JSON 404.
 */
import { Effect, Option } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import type { Base } from "./Layout.js"
import type { PanelRouter } from "./PanelRouter.js"
import { notFound, securityHeaders, signedIn, visitOf } from "./Visit.js"

type Params = Readonly<Record<string, string | undefined>>

const segment = (params: Params, name: string) => encodeURIComponent(params[name] ?? "")

/** A 303 to the page that `target` names from the path's parameters. */
const goTo = (target: (params: Params) => string) => () =>
  Effect.map(HttpRouter.params, (params) =>
    HttpServerResponse.empty({ status: 303, headers: { ...securityHeaders, location: target(params) } })
  )

/** The "Not found" page, with the navigation of the signed-in user when there is one. */
const nothingHere = (base: Base) => (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const visit = yield* visitOf(request, base)
    const who = yield* signedIn(visit)
    return Option.match(who, {
      onNone: () => notFound(visit),
      onSome: (user) => notFound(visit, user.user, user.session.csrf_token)
    })
  })

/** Adds the panel's fallbacks under `base`: after every page's route, which they do not shadow. */
export const addFallbackRoutes = (router: PanelRouter, base: Base) => {
  const company = `${base}/companies/:company` as const
  const connection = `${company}/connections/:connection` as const
  const companyPage = (params: Params) => `${base}/companies/${segment(params, "company")}`
  const connectionPage = (params: Params) => `${companyPage(params)}/connections/${segment(params, "connection")}`
  const postOnly: ReadonlyArray<readonly [`/${string}`, (params: Params) => string]> = [
    [`${base}/sign-out`, () => base],
    [`${base}/sign-out-everywhere`, () => base],
    [`${company}/settings`, companyPage],
    [`${company}/scopes`, (params) => `${companyPage(params)}#scopes`],
    [`${company}/connections`, companyPage],
    [`${company}/locations`, (params) => `${companyPage(params)}#locations`],
    [`${company}/people/:user/enabled`, (params) => `${companyPage(params)}/people`],
    [`${connection}/name`, connectionPage],
    [`${connection}/enabled`, connectionPage],
    [`${connection}/keys`, (params) => `${connectionPage(params)}#keys`],
    [`${connection}/keys/:key/revoke`, (params) => `${connectionPage(params)}#keys`],
    [`${connection}/locations`, (params) => `${connectionPage(params)}#locations`],
    [`${connection}/locations/:location/unassign`, (params) => `${connectionPage(params)}#locations`]
  ]
  return Effect.all([
    ...postOnly.map(([path, target]) => router.add("GET", path, goTo(target))),
    router.add("*", `${base}/*`, nothingHere(base))
  ])
}

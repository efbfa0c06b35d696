/**
 * The panel's answers at its edges, on both engines: a language the core does not know shown next to its
 * field, the panel's own 404 page at every unknown path, a GET of a form's address sent to its page, a
 * refused form post that names its cause, and two owners disabling each other at once.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { idAfter, makeUser, PanelClient } from "./PanelClient.js"
import { TestServer, TestServerWith } from "./TestServer.js"

const password = "correct horse battery"
let address = 0
/** A visitor from an address of its own (the server trusts 127.0.0.1 as a proxy), so throttles do not mix. */
const visitor = (url: string) => new PanelClient(url, { "x-forwarded-for": `10.2.0.${++address}` })

describe("the panel's answers at its edges", () => {
  layer(TestServerWith({}, { TRUSTED_PROXIES: "127.0.0.1" }), { timeout: 120_000 })("panel", (it) => {
    /** A signed-in administrator and a company they made, with two owners signed in. */
    const world = Effect.gen(function* () {
      const { url, config } = yield* TestServer
      const suffix = `${Date.now().toString(36)}${++address}`
      yield* makeUser(config, { email: `admin-${suffix}@example.com`, name: "Ada", password, role: "admin" })
      const admin = visitor(url)
      const company = yield* Effect.promise(async () => {
        expect((await admin.signIn(`admin-${suffix}@example.com`, password)).status).toBe(303)
        await admin.get("/panel/companies")
        const created = await admin.post("/panel/companies", {
          name: "Gamma",
          currency: "EUR",
          main_language: "en",
          languages: "de",
          tax_model: "none",
          storage_slug: `gamma-${suffix}`
        })
        expect(created.status).toBe(303)
        return idAfter(created.location, "companies")
      })
      const owners = []
      for (const name of ["one", "two"]) {
        const email = `owner-${name}-${suffix}@example.com`
        const made = yield* makeUser(config, { email, name, password, role: "owner", company_id: company })
        const client = visitor(url)
        expect((yield* Effect.promise(() => client.signIn(email, password))).status).toBe(303)
        owners.push({ id: made.id, client })
      }
      return { url, suffix, admin, company, owners }
    })

    it.effect("an unknown language is refused next to its field, and no company is made", () =>
      Effect.gen(function* () {
        const { admin, suffix } = yield* world
        yield* Effect.promise(async () => {
          await admin.get("/panel/companies")
          const refused = await admin.post("/panel/companies", {
            name: "Delta",
            currency: "EUR",
            main_language: "en",
            languages: "de, xx",
            tax_model: "none",
            storage_slug: `delta-${suffix}`
          })
          expect(refused.status).toBe(422)
          expect(refused.text).toMatch(
            /<span class="error" id="company-languages-error">\s*must be a language code such as en, de or pt-BR; &quot;xx&quot; is not one\s*<\/span>/
          )
          expect((await admin.get("/panel/companies")).text).not.toContain(`delta-${suffix}`)
        })
      })
    )

    it.effect(
      "every unknown path under /panel gets the panel's 404 page; a form's address sends a GET to its page",
      () =>
        Effect.gen(function* () {
          const { url, admin, company } = yield* world
          yield* Effect.promise(async () => {
            for (const answer of [
              await fetch(`${url}/panel/nope`, { redirect: "manual" }),
              await fetch(`${url}/panel/companies/${company}/nope/deeper`, { redirect: "manual" }),
              await fetch(`${url}/panel/nope`, { method: "POST", redirect: "manual" }),
              await fetch(`${url}/panel/nope`, { method: "DELETE", redirect: "manual" })
            ]) {
              expect(answer.status).toBe(404)
              expect(answer.headers.get("content-type")).toMatch(/^text\/html/)
              const text = await answer.text()
              expect(text).toContain("Not found")
              expect(text).not.toContain("route_not_found")
            }
            // Signed in, the page keeps the panel's navigation.
            const signedIn = await admin.get("/panel/nope")
            expect(signedIn.status).toBe(404)
            expect(signedIn.text).toContain('href="/panel/companies"')
            // A reload of the page a new key's form answered, or any other form's address, goes to its page.
            const connection = `/panel/companies/${company}/connections/00000000-0000-4000-8000-000000000001`
            const reload = await admin.get(`${connection}/keys`)
            expect(reload.status).toBe(303)
            expect(reload.location).toBe(`${connection}#keys`)
            expect((await admin.get(`/panel/companies/${company}/settings`)).location).toBe(
              `/panel/companies/${company}`
            )
            // The API keeps its JSON 404.
            const api = await fetch(`${url}/api/v1/nope`)
            expect(api.status).toBe(404)
            expect(await api.text()).toContain("route_not_found")
          })
        })
    )

    it.effect("a form without a matching Origin or csrf field is refused with the cause named", () =>
      Effect.gen(function* () {
        const { url, admin, company } = yield* world
        yield* Effect.promise(async () => {
          await admin.get(`/panel/companies/${company}`)
          const at = `/panel/companies/${company}/connections`
          const noOrigin = await admin.post(at, { name: "ERP" }, { origin: null })
          expect(noOrigin.status).toBe(403)
          expect(noOrigin.text).toContain("had no Origin or Referer header")
          expect(noOrigin.text).toContain(`Origin: ${url}`)
          const elsewhere = await admin.post(at, { name: "ERP" }, { origin: "https://elsewhere.example" })
          expect(elsewhere.text).toContain("named the origin https://elsewhere.example")
          const noToken = await admin.post(at, { name: "ERP" }, { csrf: null })
          expect(noToken.status).toBe(403)
          expect(noToken.text).toContain("csrf field is missing or does not match")
        })
      })
    )

    it.effect("two owners disabling each other at once: one of them stays enabled", () =>
      Effect.gen(function* () {
        const { admin, company, owners } = yield* world
        yield* Effect.promise(async () => {
          const [one, two] = owners
          for (const owner of owners) await owner.client.get(`/panel/companies/${company}/people`)
          const answers = await Promise.all([
            one!.client.post(`/panel/companies/${company}/people/${two!.id}/enabled`, { enabled: "false" }),
            two!.client.post(`/panel/companies/${company}/people/${one!.id}/enabled`, { enabled: "false" })
          ])
          // One disables the other; the other is refused (409), or, when the first change ended its
          // session before its post was read, sent to sign in.
          const done = answers.filter((answer) => answer.location?.endsWith("/people?done=person-disabled"))
          expect(done).toHaveLength(1)
          const other = answers.find((answer) => answer !== done[0])!
          expect(other.status === 409 || other.location === "/panel/sign-in").toBe(true)
          const people = (await admin.get(`/panel/companies/${company}/people`)).text
          expect(people.match(/<td>owner<\/td>\s*<td>enabled<\/td>/g)).toHaveLength(1)
          expect(people.match(/<td>owner<\/td>\s*<td>disabled<\/td>/g)).toHaveLength(1)
        })
      })
    )
  })
})

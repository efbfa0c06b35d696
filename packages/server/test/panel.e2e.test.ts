/**
 * The company panel over HTTP: sign-in and its throttle, sessions and their cookies, CSRF and origin
 * checks, escaping, and the isolation of companies on every page and form (an owner of A editing ids
 * to B's finds nothing and changes nothing).
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { hiddenIn, idAfter, makeUser, PanelClient, sessionOf } from "./PanelClient.js"
import { TestServer, TestServerWith } from "./TestServer.js"

const password = "correct horse battery"
let address = 0
/** A visitor from an address of its own (the server trusts 127.0.0.1 as a proxy), so throttles do not mix. */
const visitor = (url: string, headers: Record<string, string> = {}) =>
  new PanelClient(url, { "x-forwarded-for": `10.1.0.${++address}`, ...headers })

interface World {
  readonly admin: PanelClient
  readonly a: {
    readonly company: string
    readonly connection: string
    readonly key: string
    readonly token: string
    readonly location: string
    readonly owner: PanelClient
    readonly ownerId: string
  }
  readonly b: {
    readonly company: string
    readonly connection: string
    readonly key: string
    readonly location: string
    readonly ownerId: string
  }
}

/** An administrator, companies A and B made in the panel, an owner of each, a connection and key in each. */
const world = (url: string, config: Parameters<typeof makeUser>[0]) =>
  Effect.gen(function* () {
    const suffix = Date.now().toString(36)
    yield* makeUser(config, { email: `admin-${suffix}@example.com`, name: "Ada", password, role: "admin" })
    return yield* Effect.promise(async (): Promise<World> => {
      const admin = visitor(url)
      expect((await admin.signIn(`admin-${suffix}@example.com`, password)).status).toBe(303)
      const make = async (name: string) => {
        await admin.get("/panel/companies")
        const created = await admin.post("/panel/companies", {
          name,
          currency: "EUR",
          main_language: "en",
          languages: "de",
          tax_model: "exclusive",
          tax_rates: "20",
          storage_slug: `${name.toLowerCase()}-${suffix}`,
          granted_scopes: ["catalog:read", "prices:read"]
        })
        expect(created.status).toBe(303)
        const company = idAfter(created.location, "companies")
        await admin.get(`/panel/companies/${company}/people`)
        const email = `owner-${name.toLowerCase()}-${suffix}@example.com`
        expect(
          (
            await admin.post(`/panel/companies/${company}/people`, {
              name: `Owner ${name}`,
              email,
              role: "owner",
              password
            })
          ).status
        ).toBe(303)
        const owner = visitor(url)
        expect((await owner.signIn(email, password)).status).toBe(303)
        await owner.get(`/panel/companies/${company}`)
        const connection = idAfter(
          (await owner.post(`/panel/companies/${company}/connections`, { name: "ERP" })).location,
          "connections"
        )
        const page = await owner.get(`/panel/companies/${company}/connections/${connection}`)
        expect(page.status).toBe(200)
        const keyPage = await owner.post(`/panel/companies/${company}/connections/${connection}/keys`, {
          name: "",
          scopes: ["catalog:read"],
          lifetime_days: "30",
          nonce: hiddenIn(page.text, "nonce")
        })
        expect(keyPage.status).toBe(201)
        const key = /Key id<\/dt>\s*<dd><code>([0-9a-f]{24})<\/code>/.exec(keyPage.text)?.[1] ?? ""
        const token = /id="secret">([^<]+)</.exec(keyPage.text)?.[1] ?? ""
        await owner.get(`/panel/companies/${company}`)
        const location = idAfter(
          (await owner.post(`/panel/companies/${company}/locations`, { name: "Depot" })).location,
          "companies"
        )
        const people = await admin.get(`/panel/companies/${company}/people`)
        const ownerId = new RegExp(`/people/([0-9a-f-]{36})/enabled`).exec(people.text)?.[1] ?? ""
        const locations = await owner.get(`/panel/companies/${company}/connections/${connection}`)
        const locationId = /<option value="([0-9a-f-]{36})"/.exec(locations.text)?.[1] ?? location
        const assigned = await owner.post(`/panel/companies/${company}/connections/${connection}/locations`, {
          location_id: locationId,
          access: "write"
        })
        expect(assigned.status).toBe(303)
        for (const id of [company, connection, locationId, ownerId]) expect(id).toMatch(/^[0-9a-f-]{36}$/)
        expect(key).toMatch(/^[0-9a-f]{24}$/)
        return { company, connection, key, token, owner, location: locationId, ownerId }
      }
      const a = await make("Alpha")
      const b = await make("Beta")
      return { admin, a, b }
    })
  })

describe("company panel over HTTP", () => {
  layer(TestServerWith({}, { TRUSTED_PROXIES: "127.0.0.1" }), { timeout: 120_000 })("panel", (it) => {
    it.effect("a wrong password sets no session; the sign-in form without its token is refused", () =>
      Effect.gen(function* () {
        const { url, config } = yield* TestServer
        yield* makeUser(config, { email: "wrong@example.com", name: "W", password, role: "admin" })
        yield* Effect.promise(async () => {
          const client = visitor(url)
          await client.get("/panel/sign-in")
          const wrong = await client.post("/panel/sign-in", {
            email: "wrong@example.com",
            password: "not the password"
          })
          expect(wrong.status).toBe(401)
          expect(wrong.text).toContain("The email or the password is wrong.")
          expect(wrong.setCookies.some((line) => line.startsWith("panel_session="))).toBe(false)
          expect((await client.get("/panel/companies")).location).toBe("/panel/sign-in")
          const tokenless = await client.post(
            "/panel/sign-in",
            { email: "wrong@example.com", password },
            { csrf: null }
          )
          expect(tokenless.status).toBe(403)
          // A form without a declared length (chunked) is not read at all.
          const chunked = await fetch(`${url}/panel/sign-in`, {
            method: "POST",
            headers: {
              "content-type": "application/x-www-form-urlencoded",
              origin: url,
              cookie: `panel_sign_in=${client.cookies.get("panel_sign_in")}`,
              ...client.headers
            },
            body: new Blob([`csrf=${client.csrf}&email=wrong%40example.com&password=x`]).stream(),
            duplex: "half"
          } as RequestInit)
          expect(chunked.status).toBe(403)
        })
      })
    )

    it.effect(
      "the session cookie is HttpOnly, SameSite=Strict, Secure behind a TLS proxy; sign-in rotates it; sign-out ends it",
      () =>
        Effect.gen(function* () {
          const { url, config } = yield* TestServer
          yield* makeUser(config, { email: "cookie@example.com", name: "C", password, role: "admin" })
          yield* Effect.promise(async () => {
            const client = visitor(url, { "x-forwarded-proto": "https" })
            await client.get("/panel/sign-in")
            const formToken = client.cookies.get("panel_sign_in")!
            expect(formToken).toMatch(/^[A-Za-z0-9_-]{43}$/)
            const first = await client.post("/panel/sign-in", { email: "cookie@example.com", password })
            const cookie = first.setCookies.find((line) => line.startsWith("panel_session="))!
            expect(cookie).toMatch(/HttpOnly/)
            expect(cookie).toMatch(/SameSite=Strict/)
            expect(cookie).toMatch(/Secure/)
            // The sign-in form's cookie is removed with the same attributes it was set with.
            const cleared = first.setCookies.find((line) => line.startsWith("panel_sign_in="))!
            expect(cleared).toMatch(/^panel_sign_in=;/)
            expect(cleared).toMatch(/Max-Age=0/i)
            expect(cleared).toMatch(/Path=\/panel/)
            expect(client.cookies.has("panel_sign_in")).toBe(false)
            const before = client.cookies.get("panel_session")!
            // Signing in again from a sign-in form opened before (the old session's cookie sent) ends the old session.
            const tab = new PanelClient(url, client.headers)
            await tab.get("/panel/sign-in")
            client.cookies.set("panel_sign_in", tab.cookies.get("panel_sign_in")!)
            client.csrf = tab.csrf
            expect((await client.post("/panel/sign-in", { email: "cookie@example.com", password })).status).toBe(303)
            expect(client.cookies.has("panel_sign_in")).toBe(false)
            const after = client.cookies.get("panel_session")!
            expect(after).not.toBe(before)
            for (const stale of [before, formToken]) {
              const old = new PanelClient(url, client.headers)
              old.cookies.set("panel_session", stale)
              expect((await old.get("/panel/companies")).location).toBe("/panel/sign-in")
            }
            expect((await client.get("/panel/companies")).status).toBe(200)
            const plain = visitor(url)
            const noTls = await plain.signIn("cookie@example.com", password)
            expect(noTls.setCookies.find((line) => line.startsWith("panel_session="))).not.toMatch(/Secure/)
            await client.get("/panel/companies")
            expect((await client.post("/panel/sign-out", {})).location).toBe("/panel/sign-in")
            const ended = new PanelClient(url, client.headers)
            ended.cookies.set("panel_session", after)
            expect((await ended.get("/panel/companies")).location).toBe("/panel/sign-in")
            // Sign out everywhere ends the other browser's session too.
            await plain.get("/panel/companies")
            expect((await plain.post("/panel/sign-out-everywhere", {})).status).toBe(303)
            const again = visitor(url)
            await again.signIn("cookie@example.com", password)
            expect((await again.get("/panel/companies")).status).toBe(200)
          })
        })
    )

    it.effect(
      "an owner of A can neither see nor change anything of B by editing ids; forms need the token and the origin",
      () =>
        Effect.gen(function* () {
          const { url, config } = yield* TestServer
          const { a, b, admin } = yield* world(url, config)
          yield* Effect.promise(async () => {
            const owner = a.owner
            const A = `/panel/companies/${a.company}`
            const B = `/panel/companies/${b.company}`
            const pages = [
              B,
              `${B}/people`,
              `${B}/audit`,
              `${B}/connections/${b.connection}`,
              `${A}/connections/${b.connection}`,
              `${B}/connections/${a.connection}`,
              "/panel/companies",
              "/panel/audit"
            ]
            for (const path of pages) expect([path, (await owner.get(path)).status]).toEqual([path, 404])
            await owner.get(A)
            const forms: ReadonlyArray<readonly [string, Record<string, string | Array<string>>]> = [
              [`${B}/connections`, { name: "Intruder" }],
              [`${B}/locations`, { name: "Intruder" }],
              [`${B}/settings`, { name: "Taken", currency: "EUR", main_language: "en", tax_model: "none" }],
              [`${B}/scopes`, { granted_scopes: ["catalog:write"] }],
              [`${A}/scopes`, { granted_scopes: ["catalog:write"] }],
              [`${B}/people`, { name: "I", email: "intruder@example.com", role: "owner", password }],
              [`${B}/people/${b.ownerId}/enabled`, { enabled: "false" }],
              [`${A}/people/${b.ownerId}/enabled`, { enabled: "false" }],
              [`${B}/connections/${b.connection}/name`, { name: "Renamed" }],
              [`${A}/connections/${b.connection}/name`, { name: "Renamed" }],
              [`${A}/connections/${b.connection}/enabled`, { enabled: "false" }],
              [`${A}/connections/${b.connection}/keys`, { scopes: ["catalog:read"], lifetime_days: "30" }],
              [`${A}/connections/${a.connection}/keys/${b.key}/revoke`, {}],
              [`${A}/connections/${b.connection}/keys/${b.key}/revoke`, {}],
              [`${A}/connections/${a.connection}/locations`, { location_id: b.location, access: "write" }],
              [`${A}/connections/${a.connection}/locations/${b.location}/unassign`, {}],
              [`${A}/connections/${b.connection}/locations/${b.location}/unassign`, {}],
              [`${B}/connections/${b.connection}/locations/${b.location}/unassign`, {}],
              ["/panel/companies", { name: "X", currency: "EUR", main_language: "en", storage_slug: "xx-intruder" }]
            ]
            for (const [path, fields] of forms)
              expect([path, (await owner.post(path, fields)).status]).toEqual([path, 404])
            // B is as it was: its connection's name, its key, its owner, no new company.
            const seen = await admin.get(`${B}/connections/${b.connection}`)
            expect(seen.text).toContain("<h1>ERP</h1>")
            expect(seen.text).toMatch(
              new RegExp(`${b.key}</code></td>\\s*<td>catalog:read</td>\\s*<td>[0-9-]+</td>\\s*<td>active`)
            )
            expect(seen.text).toMatch(/<td>Depot<\/td>\s*<td>\s*reads and writes\s*<\/td>/)
            expect((await admin.get(`${B}/people`)).text).not.toContain("intruder@example.com")
            expect((await admin.get(`${B}/people`)).text).toContain("enabled</td>")
            expect((await admin.get("/panel/companies")).text).not.toContain(">X<")
            // The token and the origin: each missing or wrong, refused; nothing renamed.
            await owner.get(A)
            const rename = `${A}/connections/${a.connection}/name`
            expect((await owner.post(rename, { name: "No token" }, { csrf: null })).status).toBe(403)
            expect((await owner.post(rename, { name: "Wrong token" }, { csrf: "x".repeat(43) })).status).toBe(403)
            expect((await owner.post(rename, { name: "Other site" }, { origin: "https://evil.example" })).status).toBe(
              403
            )
            expect((await owner.post(rename, { name: "No origin" }, { origin: null })).status).toBe(403)
            expect((await owner.get(`${A}/connections/${a.connection}`)).text).toContain("<h1>ERP</h1>")
            expect((await owner.post(rename, { name: "Renamed" })).status).toBe(303)
            expect((await owner.get(`${A}/connections/${a.connection}`)).text).toContain("<h1>Renamed</h1>")
          })
        })
    )

    it.effect(
      "a disabled company refuses its owner's changes and says why; no one disables themselves; another company's email is not named",
      () =>
        Effect.gen(function* () {
          const { url, config } = yield* TestServer
          const { a, admin, b } = yield* world(url, config)
          yield* Effect.promise(async () => {
            const A = `/panel/companies/${a.company}`
            // Disabling oneself is refused with the reason.
            await a.owner.get(`${A}/people`)
            const self = await a.owner.post(`${A}/people/${a.ownerId}/enabled`, { enabled: "false" })
            expect(self.status).toBe(409)
            expect(self.text).toContain("you cannot disable yourself")
            // B's owner's email: refused without saying it belongs to someone.
            const bPeople = await admin.get(`/panel/companies/${b.company}/people`)
            const bEmail = /<td>(owner-beta-[^<]+)<\/td>/.exec(bPeople.text)?.[1] ?? ""
            expect(bEmail).toContain("@example.com")
            await a.owner.get(`${A}/people`)
            const taken = await a.owner.post(`${A}/people`, { name: "X", email: bEmail, role: "manager", password })
            expect(taken.status).toBe(422)
            expect(taken.text).toContain("this email cannot be used")
            expect(taken.text).not.toContain("is taken")
            // The administrator disables A: its owner reads but changes nothing, and is told why.
            await admin.get(A)
            const disabled = await admin.post(`${A}/settings`, {
              name: "Alpha",
              currency: "EUR",
              main_language: "en",
              languages: "de",
              tax_model: "exclusive",
              tax_rates: "20",
              enabled: "false"
            })
            expect(disabled.status).toBe(303)
            const page = await a.owner.get(A)
            expect(page.status).toBe(200)
            expect(page.text).toContain("This company is disabled")
            const refused = await a.owner.post(`${A}/connections`, { name: "After" })
            expect(refused.status).toBe(409)
            expect(refused.text).toContain("this company is disabled")
            const at = `${A}/connections/${a.connection}`
            const keyPage = await a.owner.get(at)
            const key = await a.owner.post(`${at}/keys`, {
              name: "late",
              scopes: ["catalog:read"],
              lifetime_days: "30",
              nonce: hiddenIn(keyPage.text, "nonce")
            })
            expect(key.status).toBe(422)
            expect(key.text).toContain("No key was created: this company is disabled")
            expect(key.text).not.toContain("csk_")
            expect((await a.owner.get(A)).text).not.toContain(">After<")
          })
        })
    )

    it.effect(
      "the sign-in form is shown to a browser signed in already, saying as whom; HSTS over TLS; failed sign-ins are audited",
      () =>
        Effect.gen(function* () {
          const { url, config } = yield* TestServer
          yield* makeUser(config, { email: "planted@example.com", name: "P", password, role: "admin" })
          yield* makeUser(config, { email: "victim@example.com", name: "V", password, role: "admin" })
          yield* Effect.promise(async () => {
            const browser = visitor(url, { "x-forwarded-proto": "https" })
            expect((await browser.signIn("planted@example.com", password)).status).toBe(303)
            const form = await browser.get("/panel/sign-in")
            expect(form.status).toBe(200)
            expect(form.text).toContain("signed in as <strong>planted@example.com</strong>")
            expect(form.text).toContain('action="/panel/sign-out"')
            expect(form.text).toContain('name="password"')
            expect(form.headers.get("strict-transport-security")).toBe("max-age=31536000")
            // Signing in as someone else from there replaces the session.
            expect((await browser.signIn("victim@example.com", password)).status).toBe(303)
            expect((await browser.get("/panel/sign-in")).text).toContain(
              "signed in as <strong>victim@example.com</strong>"
            )
            const plain = visitor(url)
            expect((await plain.get("/panel/sign-in")).headers.get("strict-transport-security")).toBeNull()
            expect((await plain.signIn("victim@example.com", "wrong password")).status).toBe(401)
            const audit = await browser.get("/panel/audit")
            expect(audit.text).toContain("session.sign_in_failed")
          })
        })
    )

    it.effect("a manager runs the company's connections but not its people or audit log", () =>
      Effect.gen(function* () {
        const { url, config } = yield* TestServer
        const { a, admin } = yield* world(url, config)
        yield* Effect.promise(async () => {
          const A = `/panel/companies/${a.company}`
          await admin.get(`${A}/people`)
          const email = `manager-${Date.now().toString(36)}@example.com`
          expect((await admin.post(`${A}/people`, { name: "Manny", email, role: "manager", password })).status).toBe(
            303
          )
          const manager = visitor(url)
          expect((await manager.signIn(email, password)).location).toBe("/panel")
          expect((await manager.get("/panel")).location).toBe(A)
          expect((await manager.get(A)).status).toBe(200)
          expect((await manager.post(`${A}/connections`, { name: "Shop" })).status).toBe(303)
          for (const path of [`${A}/people`, `${A}/audit`])
            expect([path, (await manager.get(path)).status]).toEqual([path, 404])
          await manager.get(A)
          const added = await manager.post(`${A}/people`, { name: "X", email: `x-${email}`, role: "owner", password })
          expect(added.status).toBe(404)
        })
      })
    )

    it.effect("a key form sent twice creates one key: the second answer names it and shows no secret", () =>
      Effect.gen(function* () {
        const { url, config } = yield* TestServer
        const { a } = yield* world(url, config)
        yield* Effect.promise(async () => {
          const at = `/panel/companies/${a.company}/connections/${a.connection}`
          const page = await a.owner.get(at)
          const nonce = hiddenIn(page.text, "nonce")
          expect(nonce).toMatch(/^[A-Za-z0-9_-]{43}$/)
          // Each showing of the page has a form of its own.
          expect(hiddenIn((await a.owner.get(at)).text, "nonce")).not.toBe(nonce)
          const fields = { name: "reloaded", scopes: ["catalog:read"], lifetime_days: "30", nonce }
          const send = () =>
            fetch(`${url}${at}/keys`, {
              method: "POST",
              redirect: "manual",
              headers: {
                ...a.owner.headers,
                cookie: `panel_session=${a.owner.cookies.get("panel_session")}`,
                origin: url,
                "content-type": "application/x-www-form-urlencoded"
              },
              body: new URLSearchParams([
                ["csrf", a.owner.csrf],
                ...Object.entries(fields).flatMap(([name, value]) =>
                  (typeof value === "string" ? [value] : value).map((one) => [name, one] as [string, string])
                )
              ]).toString()
            })
          const first = await send()
          expect(first.status).toBe(201)
          expect(first.headers.get("cache-control")).toBe("no-store")
          const firstText = await first.text()
          const keyId = /Key id<\/dt>\s*<dd><code>([0-9a-f]{24})<\/code>/.exec(firstText)?.[1] ?? ""
          expect(firstText).toMatch(/id="secret">csk_/)
          // The browser's reload sends the same form again.
          const again = await send()
          expect(again.status).toBe(200)
          expect(again.headers.get("cache-control")).toBe("no-store")
          const againText = await again.text()
          expect(againText).toContain("already created a key; its secret was shown once")
          expect(againText).toContain(`<code>${keyId}</code>`)
          expect(againText).not.toContain("csk_")
          const keys = (await a.owner.get(at)).text.match(/<td>reloaded<\/td>/g) ?? []
          expect(keys).toHaveLength(1)
          // A form without its nonce creates nothing.
          const bare = await a.owner.post(`${at}/keys`, { name: "bare", scopes: ["catalog:read"], lifetime_days: "30" })
          expect(bare.status).toBe(422)
          expect(bare.text).toContain("this form is incomplete")
          expect((await a.owner.get(at)).text).not.toContain("<td>bare</td>")
        })
      })
    )

    it.effect("location access is removed in the panel; the page shows the requests of this minute", () =>
      Effect.gen(function* () {
        const { url, config } = yield* TestServer
        const { a } = yield* world(url, config)
        yield* Effect.promise(async () => {
          const at = `/panel/companies/${a.company}/connections/${a.connection}`
          const before = await a.owner.get(at)
          expect(before.text).toMatch(/<td>Depot<\/td>\s*<td>\s*reads and writes\s*<\/td>/)
          const removed = await a.owner.post(`${at}/locations/${a.location}/unassign`, {})
          expect(removed.status).toBe(303)
          expect(removed.location).toBe(`${at}?done=location-unassigned#locations`)
          const after = await a.owner.get(removed.location!)
          expect(after.text).toMatch(/<td>Depot<\/td>\s*<td>\s*none\s*<\/td>/)
          expect(after.text).toContain("no longer reads or writes that location")
          expect(after.text).not.toContain(`${at}/locations/${a.location}/unassign`)
          // Removing it again finds nothing to remove.
          expect((await a.owner.post(`${at}/locations/${a.location}/unassign`, {})).status).toBe(404)
          const audit = await a.owner.get(`/panel/companies/${a.company}/audit`)
          expect(audit.text).toContain("location.unassign")

          // Three requests with the key, within one minute: the page counts them without counting itself.
          if (Date.now() % 60_000 > 50_000)
            await new Promise((done) => setTimeout(done, 61_000 - (Date.now() % 60_000)))
          for (let i = 0; i < 3; i++) {
            const me = await fetch(`${url}/api/v1/me`, { headers: { authorization: `Bearer ${a.token}` } })
            expect(me.status).toBe(200)
          }
          for (let read = 0; read < 2; read++) {
            const page = await a.owner.get(at)
            expect(page.text).toMatch(new RegExp(`${a.key}</code></td>[\\s\\S]*?<td>active</td>\\s*<td>3 of 120</td>`))
            expect(page.text).toMatch(/<dd>\s*3 of 600 for the company's keys together/)
          }
        })
      })
    )

    it.effect("names are shown as text; a refused value is shown next to its field", () =>
      Effect.gen(function* () {
        const { url, config } = yield* TestServer
        const { a, admin } = yield* world(url, config)
        yield* Effect.promise(async () => {
          const evil = "<script>alert(1)</script>"
          await admin.get("/panel/companies")
          const created = await admin.post("/panel/companies", {
            name: evil,
            currency: "EUR",
            main_language: "en",
            tax_model: "none",
            storage_slug: `evil-${Date.now().toString(36)}`
          })
          const company = idAfter(created.location, "companies")
          const shown = await admin.get(`/panel/companies/${company}`)
          await admin.post(`/panel/companies/${company}/connections`, { name: evil })
          for (const page of [
            shown,
            await admin.get("/panel/companies"),
            await admin.get(`/panel/companies/${company}`)
          ]) {
            expect(page.text).not.toContain(evil)
            expect(page.text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;")
          }
          expect(shown.text).not.toMatch(/<script>/)
          const at = `/panel/companies/${a.company}/connections/${a.connection}`
          const refused = await a.owner.post(`${at}/keys`, {
            scopes: ["catalog:read"],
            lifetime_days: "0",
            nonce: hiddenIn((await a.owner.get(at)).text, "nonce")
          })
          expect(refused.status).toBe(422)
          expect(refused.text).toMatch(
            /<span class="error" id="key-lifetime_days-error">\s*must be a whole number of days from 1 to 365\s*<\/span>/
          )
        })
      })
    )

    it.effect(
      "20 wrong passwords throttle the account from that address, and the address; the page says how long to wait",
      () =>
        Effect.gen(function* () {
          const { url, config } = yield* TestServer
          yield* makeUser(config, { email: "target@example.com", name: "T", password, role: "admin" })
          yield* makeUser(config, { email: "other@example.com", name: "O", password, role: "admin" })
          yield* Effect.promise(async () => {
            // The account from one address: wrong passwords, then the right one, are refused there.
            const guesser = visitor(url)
            for (let i = 0; i < 20; i++) await guesser.signIn("target@example.com", `wrong password ${i}`)
            const there = await guesser.signIn("target@example.com", password)
            expect(there.status).toBe(429)
            expect(there.text).toMatch(/Try again in \d+ minutes?\./)
            expect(there.setCookies.some((line) => line.startsWith("panel_session="))).toBe(false)
            // The account's owner, from another address, is not locked out by the guesser.
            expect((await visitor(url).signIn("target@example.com", password)).status).toBe(303)
            // The address: wrong passwords for many accounts from one address.
            const attacker = visitor(url)
            for (let i = 0; i < 20; i++) await attacker.signIn(`nobody-${i}@example.com`, "wrong password")
            const blocked = await attacker.signIn("other@example.com", password)
            expect(blocked.status).toBe(429)
            expect((await visitor(url).signIn("other@example.com", password)).status).toBe(303)
          })
        })
    )
  })

  layer(
    TestServerWith(
      {},
      { TRUSTED_PROXIES: "127.0.0.1", PANEL_SESSION_IDLE_MINUTES: "45", PANEL_SESSION_MAX_HOURS: "2" }
    ),
    { timeout: 60_000 }
  )("PANEL_SESSION_MAX_HOURS", (it) => {
    it.effect("a session signed in ends PANEL_SESSION_MAX_HOURS after its sign-in", () =>
      Effect.gen(function* () {
        const { url, config } = yield* TestServer
        yield* makeUser(config, { email: "hours@example.com", name: "H", password, role: "admin" })
        const client = visitor(url)
        const signed = yield* Effect.promise(() => client.signIn("hours@example.com", password))
        expect(signed.status).toBe(303)
        const found = yield* sessionOf(config, client.cookies.get("panel_session")!)
        if (Option.isNone(found)) return expect.unreachable("the cookie names a live session")
        const { created_at, expires_at } = found.value.session
        expect(Date.parse(expires_at) - Date.parse(created_at)).toBe(2 * 3_600_000)
      })
    )
  })

  layer(TestServerWith({}, { PANEL_ENABLED: "false" }), { timeout: 60_000 })("PANEL_ENABLED=false", (it) => {
    it.effect("serves no /panel routes", () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const answers = yield* Effect.promise(() =>
          Promise.all(["/panel", "/panel/sign-in"].map((path) => fetch(`${url}${path}`, { redirect: "manual" })))
        )
        expect(answers.map((answer) => answer.status)).toEqual([404, 404])
      })
    )
  })
})

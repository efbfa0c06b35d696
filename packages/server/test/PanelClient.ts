/**
 * A panel visitor over Node's fetch: keeps its cookies, reads each page's form token, posts urlencoded
 * forms from the panel's origin; and `makeUser`, which creates a panel user in the test server's database.
 */
import { NodePasswordHasher } from "@catalog-sync/adapter-http"
import { layer as sqlitePorts } from "@catalog-sync/adapter-sqlite"
import { Ids, PeopleAdmin } from "@catalog-sync/core"
import { Context, Effect, Layer } from "effect"
import { databaseFile, PersistenceLive } from "../src/Server.js"
import type { ServerConfig } from "../src/ServerConfig.js"

export interface Page {
  readonly status: number
  readonly text: string
  readonly location: string | null
  readonly setCookies: ReadonlyArray<string>
  readonly headers: Headers
}

/** The form token in a page (the first hidden `csrf` field). */
export const tokenIn = (text: string): string => /name="csrf" value="([^"]*)"/.exec(text)?.[1] ?? ""

/** The value of the first hidden field `name` in a page (a key form's `nonce`). */
export const hiddenIn = (text: string, name: string): string =>
  new RegExp(`type="hidden" name="${name}" value="([^"]*)"`).exec(text)?.[1] ?? ""

export class PanelClient {
  readonly cookies = new Map<string, string>()
  /** The form token of the last page read. */
  csrf = ""
  constructor(
    readonly url: string,
    readonly headers: Record<string, string> = {}
  ) {}

  private async send(path: string, init: RequestInit): Promise<Page> {
    const cookie = Array.from(this.cookies, ([name, value]) => `${name}=${value}`).join("; ")
    const response = await fetch(`${this.url}${path}`, {
      ...init,
      redirect: "manual",
      headers: { ...this.headers, ...(cookie === "" ? {} : { cookie }), ...(init.headers as Record<string, string>) }
    })
    const setCookies = response.headers.getSetCookie()
    for (const line of setCookies) {
      const [pair] = line.split(";")
      const at = pair!.indexOf("=")
      const name = pair!.slice(0, at)
      const value = pair!.slice(at + 1)
      if (value === "" || /max-age=0/i.test(line)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    const text = await response.text()
    const token = tokenIn(text)
    if (token !== "") this.csrf = token
    return {
      status: response.status,
      text,
      location: response.headers.get("location"),
      setCookies,
      headers: response.headers
    }
  }

  get(path: string): Promise<Page> {
    return this.send(path, { method: "GET" })
  }

  /** Posts a form with the last page's token (unless `csrf` is given) from the panel's origin (unless `origin` is). */
  post(
    path: string,
    fields: Record<string, string | ReadonlyArray<string>>,
    options: { readonly csrf?: string | null; readonly origin?: string | null } = {}
  ): Promise<Page> {
    const body = new URLSearchParams()
    const csrf = options.csrf === undefined ? this.csrf : options.csrf
    if (csrf !== null) body.append("csrf", csrf)
    for (const [name, value] of Object.entries(fields))
      for (const one of typeof value === "string" ? [value] : value) body.append(name, one)
    const origin = options.origin === undefined ? this.url : options.origin
    return this.send(path, {
      method: "POST",
      body: body.toString(),
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        ...(origin === null ? {} : { origin })
      }
    })
  }

  async signIn(email: string, password: string): Promise<Page> {
    const form = await this.get("/panel/sign-in")
    // The sign-in form's own token (a page of a browser signed in already also has a sign-out form).
    const token = /action="[^"]*\/sign-in"[\s\S]*?name="csrf" value="([^"]*)"/.exec(form.text)?.[1]
    if (token !== undefined) this.csrf = token
    return this.post("/panel/sign-in", { email, password })
  }
}

/** Runs `use` with a PeopleAdmin over the test server's database (as the CLI makes one). */
const withPeople = <A, E>(
  config: ServerConfig,
  use: (people: PeopleAdmin.PeopleAdmin["Service"]) => Effect.Effect<A, E>
) =>
  Effect.scoped(
    Effect.gen(function* () {
      const context = yield* Layer.build(
        PeopleAdmin.PeopleAdmin.Default.pipe(
          Layer.provide(NodePasswordHasher.layer),
          Layer.provide(
            config.postgres === undefined ? sqlitePorts({ filename: databaseFile(config) }) : PersistenceLive(config)
          ),
          Layer.provide(Ids.IdsLive)
        )
      )
      return yield* use(Context.get(context, PeopleAdmin.PeopleAdmin))
    })
  )

/** Creates a panel user in the server's database (as the CLI does). */
export const makeUser = (
  config: ServerConfig,
  input: {
    readonly email: string
    readonly name: string
    readonly password: string
    readonly role: "admin" | "owner" | "manager"
    readonly company_id?: string
  }
) => withPeople(config, (people) => people.createUser(input))

/** The user and session a panel cookie's token names, as the server's database holds them. */
export const sessionOf = (config: ServerConfig, token: string) =>
  withPeople(config, (people) => people.authenticate(token))

/** The id a redirect to a created thing names (`.../companies/<id>?done=...`). */
export const idAfter = (location: string | null, segment: string): string =>
  new RegExp(`/${segment}/([0-9a-f-]{36})`).exec(location ?? "")?.[1] ?? ""

import { type Accounts, Admin, type Errors, Scope } from "@catalog-sync/core"
import { Effect, Option } from "effect"

/** The demo tenant's media folder; finding it again makes a second quickstart reuse the company. */
export const demoSlug = "demo"

/** The environment a connector (or curl) needs for its first call. */
export interface Quickstart {
  readonly url: string
  readonly key: string
  readonly company_id: string
  readonly connection_id: string
  /** False when an earlier quickstart's company and connection were reused (the key is always new). */
  readonly created: boolean
}

/**
 * A demo company with every scope, the stock package and one writable location, a connection and a
 * 90-day key with every scope: enough for every endpoint. Run again, it reuses the company and the
 * connection and makes a new key (the secret of the old one was shown once and is not stored).
 */
export const quickstart = (
  url: string
): Effect.Effect<
  Quickstart,
  Errors.PersistenceError | Errors.ValidationFailed | Errors.RecordNotFound | Accounts.AccountConflict,
  Admin.Admin
> =>
  Effect.gen(function* () {
    const admin = yield* Admin.Admin
    const existing = (yield* admin.listCompanies).find((company) => company.storage_slug === demoSlug)
    const company =
      existing ??
      (yield* admin.createCompany({
        name: "Demo Furniture",
        currency: "EUR",
        main_language: "en",
        languages: ["de", "fr"],
        storage_slug: demoSlug,
        tax_model: "inclusive",
        tax_rates: ["20"],
        stock_package: true,
        inventory_module: true,
        granted_scopes: Scope.all
      }))
    const connections = existing === undefined ? [] : yield* admin.listConnections(company.id)
    const connection =
      connections.find((c) => c.name === "quickstart") ?? (yield* admin.createConnection(company.id, "quickstart"))
    if (existing === undefined) {
      const location = yield* admin.createLocation(company.id, "Main warehouse")
      yield* admin.assignLocation(connection.id, location.id, true)
    }
    const { token } = yield* admin.createKey({
      connection_id: connection.id,
      name: "quickstart",
      scopes: company.granted_scopes,
      lifetime_days: 90
    })
    return {
      url,
      key: token,
      company_id: company.id,
      connection_id: connection.id,
      created: existing === undefined
    } satisfies Quickstart
  })

/** `export ...` lines for a POSIX shell: `eval "$(catalog-sync quickstart)"`. Values are single-quoted. */
export const exports = (result: Quickstart) =>
  `export CATALOG_SYNC_URL='${result.url}' CATALOG_SYNC_KEY='${result.key}'\n`

/**
 * What the person reads on stderr, as `#` lines a shell's `eval` skips: what was made, whether the server
 * at the printed URL takes the key (`me`: the status of GET /api/v1/me with it, none when nothing answers;
 * one line when it does not), and the first call to try.
 */
export const notes = (result: Quickstart, me: Option.Option<number>, urlGiven: boolean) => {
  const elsewhere = urlGiven ? "check --url" : "give its URL with --url"
  return [
    `# ${result.created ? "Created" : "Reused"} the demo company ${result.company_id} and its connection ${result.connection_id}, and made a new key (its secret is shown here once).`,
    Option.match(me, {
      onNone: () => `# Nothing answers at ${result.url}: start the server (npm start), or ${elsewhere}.`,
      onSome: (status) =>
        status === 200
          ? `# The server answers at ${result.url}.`
          : `# The server at ${result.url} refuses this key (GET /api/v1/me: ${status}): it is not the one on this data folder and database; start that one (npm start), or ${elsewhere}.`
    }),
    `# Try: curl -s -w '\\n' $CATALOG_SYNC_URL/api/v1/me -H "Authorization: Bearer $CATALOG_SYNC_KEY"`,
    ""
  ].join("\n")
}

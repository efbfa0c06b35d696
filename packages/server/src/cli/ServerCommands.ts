/** The commands that run the server or look at it: serve, migrate, quickstart, status. */
import { Command, Flag } from "effect/cli"
import { chosen } from "./Action.js"
import { optional } from "./Define.js"
import * as Input from "./Inputs.js"

export const serve = Command.make("serve", {}, () => chosen({ _tag: "Serve" })).pipe(
  Command.withDescription("start the HTTP server (what npm start runs)")
)
export const migrate = Command.make("migrate", {}, () => chosen({ _tag: "Migrate" })).pipe(
  Command.withDescription("apply the database migrations and exit")
)
export const quickstart = Command.make(
  "quickstart",
  {
    url: optional(
      Flag.String("url").pipe(
        Input.withHelp("url", {
          description: "the server's URL to print",
          example: "https://sync.example.com",
          default:
            "the URL the server running on this DATA_DIR recorded, if it answers; else http://HOST:PORT from the settings (localhost for 0.0.0.0)"
        })
      )
    )
  },
  ({ url }) => chosen({ _tag: "Quickstart", url })
).pipe(
  Command.withDescription(
    'create a demo company, connection and key on the local database and print `export CATALOG_SYNC_URL=... CATALOG_SYNC_KEY=...`: eval "$(catalog-sync quickstart)"'
  )
)

export const status = Command.make("status", {}, () => chosen({ _tag: "Status" })).pipe(
  Command.withDescription(
    "queue depth by kind and state, the oldest queued job's age, companies with paused media jobs, the database in use"
  )
)

/**
 * What a command line asks for. The command handlers only record it (`chosen`); `cli.ts` runs it with
 * the services it needs, so that parsing a command line never opens a database.
 */
import type { Admin, AuditLog, InventoryAdmin, JobAdmin, PeopleAdmin } from "@catalog-sync/core"
import { Context, Data, Effect, type Option, Ref, type Stdio } from "effect"

/** A command line the CLI does not take; `message` is one line, `command` the words of the command it was for. */
export class UsageError extends Data.TaggedError("UsageError")<{
  readonly message: string
  readonly command: string
}> {}

/** The admin services an admin command runs on (and standard input, where `user create` reads a password). */
export type AdminServices =
  Admin.Admin | InventoryAdmin.InventoryAdmin | PeopleAdmin.PeopleAdmin | AuditLog.AuditLog | Stdio.Stdio

/** What a command line asks for, parsed and checked; `cli.ts` runs it with the services it needs. */
export type Action =
  | { readonly _tag: "Serve" }
  | { readonly _tag: "Migrate" }
  /** An admin command: its result is printed as JSON. */
  | { readonly _tag: "Admin"; readonly run: Effect.Effect<unknown, unknown, AdminServices> }
  /** A `jobs` command (they need the media storage, which the other commands never open). */
  | { readonly _tag: "Jobs"; readonly run: Effect.Effect<unknown, unknown, JobAdmin.JobAdmin> }
  | { readonly _tag: "Quickstart"; readonly url: Option.Option<string> }
  /** The operator's overview: queue depth, oldest queued job, paused media companies, the database. */
  | { readonly _tag: "Status" }
  /** Help or the version was printed; nothing to run. */
  | { readonly _tag: "Printed" }

/** Where the command handlers record the action of the command line; they run nothing themselves. */
export class Chosen extends Context.Service<Chosen, Ref.Ref<Action | undefined>>()("@catalog-sync/server/cli/Chosen") {}

export const chosen = (action: Action) => Effect.flatMap(Chosen, (ref) => Ref.set(ref, action))

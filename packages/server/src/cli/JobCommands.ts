/** `catalog-sync jobs ...`: the operator's view of background jobs (imports, media) of every company. */
import { JobAdmin } from "@catalog-sync/core"
import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { chosen, UsageError } from "./Action.js"
import { group, optional } from "./Define.js"
import * as Input from "./Inputs.js"
import { companyOption, jobId } from "./SharedOptions.js"

/** `--company` of the listings: without it, they cover every company. */
const companyFilter = Input.uuid("company", { description: "only the jobs of this company", default: "every company" })

const jobsAction = (run: Effect.Effect<unknown, unknown, JobAdmin.JobAdmin>) => chosen({ _tag: "Jobs", run })

export const jobs = group(
  "jobs",
  "background jobs (imports, media): list, show, retry; media jobs paused by a storage refusal",
  ["list", "show", "retry", "paused", "resume"]
).pipe(
  Command.withSubcommands([
    Command.make(
      "list",
      {
        company: optional(companyFilter),
        state: optional(
          Input.choice("state", ["queued", "running", "completed", "failed", "paused"]).pipe(
            Input.withHelp("state", { description: "only jobs in this state", default: "every state" })
          )
        ),
        kind: optional(
          Input.choice("kind", ["import", "media"]).pipe(
            Input.withHelp("kind", { description: "only jobs of this kind", default: "both" })
          )
        ),
        limit: Input.wholeNumber("limit", { description: "how many jobs, 1 to 1000", default: "100" }, 1, 1000).pipe(
          Flag.withDefault(100)
        )
      },
      ({ company, state, kind, limit }) =>
        jobsAction(
          Effect.flatMap(JobAdmin.JobAdmin, (jobs) =>
            jobs.list({
              companyId: Option.getOrUndefined(company),
              state: Option.getOrUndefined(state),
              kind: Option.getOrUndefined(kind),
              limit
            })
          )
        )
    ).pipe(
      Command.withDescription("jobs of every company or one (--company), narrowed by --state and --kind, oldest first")
    ),
    Command.make("show", { id: jobId }, ({ id }) =>
      jobsAction(Effect.flatMap(JobAdmin.JobAdmin, (jobs) => jobs.show(id)))
    ).pipe(Command.withDescription("one job with its report: an import's counts and failed records, a job's failure")),
    Command.make("retry", { id: jobId }, ({ id }) =>
      jobsAction(Effect.flatMap(JobAdmin.JobAdmin, (jobs) => jobs.retry(id)))
    ).pipe(
      Command.withDescription(
        "run a failed or paused job again (an import completed with failed records runs those again), for the key that queued it"
      )
    ),
    Command.make("paused", { company: optional(companyFilter) }, ({ company }) =>
      jobsAction(Effect.flatMap(JobAdmin.JobAdmin, (jobs) => jobs.paused(Option.getOrUndefined(company))))
    ).pipe(Command.withDescription("media jobs paused by a storage refusal (all companies, or one)")),
    Command.make(
      "resume",
      {
        company: optional(companyOption),
        all: Flag.Boolean("all").pipe(Input.withHelp("all", "every company with paused jobs"), Flag.withDefault(false))
      },
      ({ company, all }) =>
        Option.isSome(company) === all
          ? Effect.fail(
              new UsageError({
                command: "jobs resume",
                message: "jobs resume needs --company <company-id> or --all (one of them)"
              })
            )
          : jobsAction(
              Effect.flatMap(JobAdmin.JobAdmin, (jobs): Effect.Effect<unknown, unknown> =>
                Option.isSome(company) ? jobs.resume(company.value) : jobs.resumeAll
              )
            )
    ).pipe(
      Command.withDescription(
        "check the media storage, then resume the paused jobs of a company (--company) or of all (--all)"
      )
    )
  ])
)

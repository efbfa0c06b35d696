/** Domain failures of the job use cases, each with a stable `code`. */
import { Schema } from "effect"
import { Int } from "../Resources/CommonFields.js"
import { JobState } from "./Job.js"

/** The connection already has the maximum of pending (queued or running) jobs. */
export class JobLimitReached extends Schema.TaggedError<JobLimitReached>()("JobLimitReached", {
  message: Schema.String,
  limit: Int,
  /** Seconds after which a slot is likely free again (>= 1). */
  retry_after: Int
}) {
  get code(): "job_limit_reached" {
    return "job_limit_reached"
  }
}

/** Only failed or paused jobs can be retried. */
export class JobNotRetryable extends Schema.TaggedError<JobNotRetryable>()("JobNotRetryable", {
  message: Schema.String,
  state: JobState
}) {
  get code(): "job_not_retryable" {
    return "job_not_retryable"
  }
}

/** The worker no longer holds the job's lease (it expired and another worker took the job). */
export class LeaseLost extends Schema.TaggedError<LeaseLost>()("LeaseLost", {
  jobId: Schema.String
}) {}

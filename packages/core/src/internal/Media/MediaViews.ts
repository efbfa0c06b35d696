import type { ChangeEntry, ChangeOperation } from "../../Changes/ChangeLog.js"
import { type JobCounts, render, type StoredJob } from "../../Jobs/Job.js"
import type { StoredMedia } from "../../Media/Media.js"

/** How a media item's writes show outside its store: its job's counts and view, its change entries. */

/** A media job's counts: its one image. */
export const mediaCounts = (job: StoredJob): JobCounts => ({
  total: 1,
  created: job.state === "completed" ? 1 : 0,
  updated: 0,
  unchanged: 0,
  failed: job.state === "failed" ? 1 : 0,
  pending: job.state === "queued" || job.state === "running" || job.state === "paused" ? 1 : 0
})

/** A media job as the job endpoints show it. */
export const jobView = (job: StoredJob) => render(job, mediaCounts(job))

/** The change entry of a new version of a media item. */
export const mediaChange = (media: StoredMedia, operation: ChangeOperation, at: string): ChangeEntry => ({
  companyId: media.companyId,
  resource: "media",
  recordId: media.id,
  revision: media.revision,
  operation,
  originConnectionId: media.connectionId,
  at,
  parts: ["media"]
})

/** Examples of the media endpoints. */
import type { Media } from "@catalog-sync/core"
import type { Schema } from "effect"
import { at, ids } from "../ExampleData.js"
import {
  errorExample,
  exampleRequestId,
  type Examples,
  idempotencyConflicts,
  idempotencyKeyInvalid,
  issuesExample,
  rateLimited,
  type OperationExamples
} from "../Examples.js"
import { jobLimitReached } from "../Jobs/Examples.js"

const image = {
  id: ids.image,
  external_id: "img-sofa-oslo-front",
  name: "Oslo sofa, front",
  purpose: "catalog",
  state: "completed",
  job_id: ids.mediaJob,
  source_format: "jpeg",
  source_bytes: 2841733,
  width: 1500,
  height: 938,
  bytes: 184226,
  content_type: "image/webp",
  content_url: `/api/v1/media/${ids.image}/content`,
  failure: null,
  revision: 2,
  created_at: at.created,
  updated_at: "2025-01-14T09:30:14.151Z"
} satisfies Schema.Codec.Encoded<typeof Media.MediaRecord>

const queuedJob = {
  id: ids.mediaJob,
  kind: "media",
  state: "queued",
  counts: { total: 1, created: 0, updated: 0, unchanged: 0, failed: 0, pending: 1 },
  run: 1,
  attempts: 0,
  failure: null,
  created_at: at.created,
  started_at: null,
  finished_at: null,
  updated_at: at.created
}

const mediaScope = (scope: "media:read" | "media:write") => [scope] as const

export const uploadExamples: OperationExamples = {
  scopes: [...mediaScope("media:write")],
  request: {
    catalog: {
      summary: "A product image (long edge up to 1500 px)",
      description:
        "Form fields first, then the file part named file. The file is the image's bytes (JPEG, PNG or WebP).",
      value: {
        external_id: "img-sofa-oslo-front",
        name: "Oslo sofa, front",
        purpose: "catalog",
        file: "(the JPEG, PNG or WebP file)"
      }
    },
    option: {
      summary: "A fabric swatch (long edge up to 720 px)",
      value: {
        external_id: "swatch-velvet-sage",
        name: "Velvet Sage swatch",
        purpose: "option",
        file: "(the JPEG, PNG or WebP file)"
      }
    }
  },
  responses: {
    202: {
      queued: {
        summary: "Queued: poll GET /jobs/{id}, then link the media by uuid or external_id",
        value: { request_id: exampleRequestId, job: queuedJob }
      },
      replayed: {
        summary: "The same external_id, file, name and purpose again: the job of that version",
        value: { request_id: exampleRequestId, job: { ...queuedJob, state: "completed" } }
      }
    },
    404: {
      not_found: errorExample("The media storage lost the staged file (its folder was removed)", {
        code: "not_found",
        message: "staging the upload: ENOENT",
        details: { resource: "media" }
      })
    },
    409: {
      media_version_immutable: errorExample("The external_id already has another file, name or purpose", {
        code: "media_version_immutable",
        message:
          "media img-sofa-oslo-front already has a version and versions are immutable; upload the changed file under a new external_id",
        details: { media_id: ids.image, changed: ["file"] }
      }),
      ...idempotencyConflicts
    },
    415: {
      unsupported_image_format: errorExample("Not a JPEG, PNG or WebP image (sniffed from the bytes)", {
        code: "unsupported_image_format",
        message: "the file is not a JPEG, PNG or WebP image"
      }),
      unsupported_media_type: errorExample("Not multipart/form-data", {
        code: "unsupported_media_type",
        message: "send the upload as multipart/form-data"
      })
    },
    422: {
      image_too_many_pixels: issuesExample(
        "More than 40 megapixels",
        "image_too_many_pixels",
        "the image has 8000x5001 pixels; at most 40000000 are accepted",
        [{ path: "$.file", message: "the image has 8000x5001 pixels; at most 40000000 are accepted" }]
      ),
      image_corrupt: issuesExample(
        "The image's header cannot be read",
        "image_corrupt",
        "the image cannot be read: Input buffer has corrupt header",
        [{ path: "$.file", message: "the image cannot be read: Input buffer has corrupt header" }]
      ),
      remote_url_not_accepted: issuesExample(
        "A URL in place of the image",
        "remote_url_not_accepted",
        "remote URLs are not imported; send the image itself as the multipart file part named file",
        [
          {
            path: "$.file",
            message: "remote URLs are not imported; send the image itself as the multipart file part named file"
          }
        ]
      ),
      validation_failed: issuesExample(
        "A missing or unknown form field",
        "validation_failed",
        "the form fields are not valid",
        [{ path: "$.name", message: "is required" }]
      ),
      ...idempotencyKeyInvalid
    },
    429: {
      staging_limit_reached: errorExample("100 MB of images waiting to be processed", {
        code: "staging_limit_reached",
        message: "this connection has 104857600 bytes of images waiting to be processed; retry when some are done",
        retry_after: 30
      }),
      ...jobLimitReached,
      ...rateLimited
    },
    503: {
      storage_denied: errorExample("The media storage refuses access (an operator must fix it)", {
        code: "storage_denied",
        message: "staging the upload: EACCES"
      }),
      storage_unavailable: errorExample("The database or the media storage is busy", {
        code: "storage_unavailable",
        message: "the database is busy; retry with the same Idempotency-Key",
        retry_after: 1
      })
    }
  }
}

const notFound: Examples = {
  not_found: errorExample("No such media item in this company", {
    code: "not_found",
    message: `no media ${ids.unknown} in this company`,
    details: { resource: "media" }
  })
}

export const mediaListExamples: OperationExamples = {
  scopes: [...mediaScope("media:read")],
  responses: {
    200: {
      page: {
        summary: "The company's media, in id order",
        value: { request_id: exampleRequestId, records: [image], next_cursor: ids.image, has_more: true }
      },
      last: {
        summary: "The last page",
        value: { request_id: exampleRequestId, records: [image], next_cursor: null, has_more: false }
      }
    },
    422: {
      validation_failed: issuesExample("limit outside 1-100", "validation_failed", "query parameters are not valid", [
        { path: "query.limit", message: "must be a whole number from 1 to 100" }
      ])
    }
  }
}

export const mediaGetExamples: OperationExamples = {
  scopes: [...mediaScope("media:read")],
  responses: {
    200: {
      completed: { summary: "A processed image", value: { request_id: exampleRequestId, record: image } },
      queued: {
        summary: "Waiting for processing",
        value: {
          request_id: exampleRequestId,
          record: {
            ...image,
            state: "queued",
            width: null,
            height: null,
            bytes: null,
            content_type: null,
            content_url: null,
            revision: 1,
            updated_at: at.created
          }
        }
      }
    },
    404: notFound
  }
}

export const mediaContentExamples: OperationExamples = {
  scopes: [...mediaScope("media:read")],
  responses: {
    200: { webp: { summary: "The WebP bytes", value: "(binary image/webp)" } },
    404: {
      ...notFound,
      not_completed: errorExample("Not processed yet", {
        code: "not_found",
        message: `media ${ids.image} is queued; its content exists once completed`,
        details: { resource: "media" }
      })
    }
  }
}

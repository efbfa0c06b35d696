/** Examples of the probes. */
import { errorExample, exampleRequestId, type OperationExamples } from "../Examples.js"

const ok = { ok: { summary: "Serving", value: { request_id: exampleRequestId, status: "ok" } } }

export const healthExamples: OperationExamples = { responses: { 200: ok } }

export const readyExamples: OperationExamples = {
  responses: {
    200: ok,
    503: {
      not_ready: errorExample("The database does not answer", {
        code: "not_ready",
        message: "the database does not answer"
      })
    }
  }
}

/** Options and arguments that several command groups take, defined once. */
import * as Input from "./Inputs.js"

export const companyId = Input.uuidArg("company-id", "the company's id")
export const connectionId = Input.uuidArg("connection-id", "the connection's id")
export const jobId = Input.uuidArg("job-id", "the job's id")
export const companyOption = Input.uuid("company", "the company's id")
export const connectionOption = Input.uuid("connection", "the connection's id")
export const locationOption = Input.uuid("location", "the location's id")

/** How driver failures become port errors; shared so that every driver package reports them alike. */
export { classify, type Failure, fromSqlError, refineErrors } from "./internal/errors.js"

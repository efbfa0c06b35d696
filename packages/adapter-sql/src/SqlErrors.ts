/** How driver failures become port errors; shared so that every driver package reports them alike. */
export { classify, type Failure, fromSqlError, isUniqueViolation, refineErrors } from "./internal/errors.js"

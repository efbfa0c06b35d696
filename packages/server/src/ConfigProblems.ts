import { type Config, SchemaIssue } from "effect"

/** One line per problem, each naming its variable (the settings' own messages already do; others get `NAME: `). */
export const describeConfigError = (error: Config.ConfigError): string =>
  error.cause._tag === "SourceError" ? error.cause.message : problems(error.cause.issue, []).join("; ")

const formatIssue = SchemaIssue.makeFormatterDefault()

/** The issue's problems with the variable each is about; a union's alternatives stay one problem. */
const problems = (issue: SchemaIssue.Issue, path: ReadonlyArray<PropertyKey>): ReadonlyArray<string> => {
  switch (issue._tag) {
    case "Pointer":
      return problems(issue.issue, [...path, ...issue.path])
    case "Composite":
      return issue.issues.flatMap((inner) => problems(inner, path))
    default:
      // One line: the formatter lists a union's other alternatives on lines of their own.
      return [withVariable(path, formatIssue(issue).split("\n")[0]!)]
  }
}

const withVariable = (path: ReadonlyArray<PropertyKey>, message: string) => {
  const name = path.map(String).join("_")
  return name === "" || message.includes(name) ? message : `${name}: ${message}`
}

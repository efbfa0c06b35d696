/** The npm alias of the better-sqlite3 that a Node.js with these `process.versions` loads. */
export declare const driverFor: (versions: {
  readonly [name: string]: string | undefined
}) => "better-sqlite3-12" | "better-sqlite3-13"

import { expect, it } from "@effect/vitest"
import { sqliteAbortsOn } from "../src/Startup.js"

it("warns of better-sqlite3 12 aborting exactly on Node 24.19 and later", () => {
  const affected = ["24.19.0", "v24.21.0", "24.30.1", "25.0.0", "26.2.3"]
  const safe = ["20.20.2", "22.23.3", "24.0.0", "24.11.1", "24.18.1", "v24.18.9"]
  expect(affected.filter((version) => !sqliteAbortsOn(version))).toEqual([])
  expect(safe.filter(sqliteAbortsOn)).toEqual([])
})

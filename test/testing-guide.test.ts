/**
 * docs/testing.md's whole test file runs as shown in a new project that installed the packed packages and
 * their peers (vitest, @effect/vitest, fast-check) from npm: it typechecks against the published
 * declarations and its tests pass under that project's vitest. There the domain kit
 * (`@catalog-sync/core/domain-kit`) loads in plain node with vitest unresolvable, as the page says.
 */
import { describe, expect, it } from "@effect/vitest"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { packedApp, root, run, sameLine } from "../examples/embed/test/PackedApp.js"

/** The code of the page's block whose comment names this test file: the whole test file it shows. */
const shownFile = () => {
  const page = readFileSync(join(root, "docs", "testing.md"), "utf8")
  const blocks = [...page.matchAll(/<!--([^\n]*?)-->\n```ts\n([\s\S]*?)\n```/g)].filter(([, note]) =>
    note!.includes("test/testing-guide.test.ts")
  )
  expect(blocks).toHaveLength(1)
  const code = blocks[0]![2]!
  // Its first line names where the file goes in the reader's project.
  const path = /^\/\/ (\S+\.test\.ts)\n/.exec(code)?.[1]
  expect(path).toBeDefined()
  return { path: path!, code }
}

/** Node's resolution hooks that refuse vitest, as in a project that never installed it. */
const withoutVitest = `import { registerHooks } from "node:module"
registerHooks({
  resolve(specifier, context, next) {
    if (/^(@effect\\/)?vitest(\\/|$)/.test(specifier)) throw new Error("vitest is not installed: " + specifier)
    return next(specifier, context)
  }
})
`

/** This process's environment without this vitest's own settings, and without colours. */
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(VITEST|TEST_|NODE_OPTIONS$)/.test(name))),
  NO_COLOR: "1"
}

/** Runs node in `cwd`; the exit code and what it printed. */
const node = (cwd: string, args: ReadonlyArray<string>) =>
  run(process.execPath, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ status: 0, output: `${stdout}${stderr}` }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      status: error.code ?? -1,
      output: `${error.stdout ?? ""}${error.stderr ?? ""}`
    })
  )

describe("docs/testing.md in a new project", () => {
  it(
    "its whole test file typechecks and passes; the domain kit loads without vitest, the vitest helpers do not",
    { timeout: 300_000 },
    async () => {
      const shown = shownFile()
      const app = await packedApp({
        prefix: "catalog-sync-kit-",
        name: "kit-user",
        packages: ["core"],
        dependencies: sameLine("effect"),
        devDependencies: sameLine("vitest", "@effect/vitest", "fast-check", "typescript")
      })
      try {
        await app.install()
        mkdirSync(join(app.dir, dirname(shown.path)), { recursive: true })
        writeFileSync(join(app.dir, shown.path), `${shown.code}\n`)
        // A reader's usual settings: strict, Node's ESM resolution (the packages' exports maps).
        writeFileSync(
          join(app.dir, "tsconfig.json"),
          JSON.stringify({
            compilerOptions: {
              target: "es2022",
              module: "nodenext",
              strict: true,
              noEmit: true,
              skipLibCheck: true
            },
            include: [shown.path]
          })
        )
        const tsc = await node(app.dir, [join(app.dir, "node_modules", "typescript", "bin", "tsc"), "-p", "."])
        expect(tsc.output).toBe("")
        expect(tsc.status).toBe(0)

        const vitest = await node(app.dir, [join(app.dir, "node_modules", "vitest", "vitest.mjs"), "run"])
        expect(vitest.status, vitest.output).toBe(0)
        expect(vitest.output).toMatch(/Tests\s+2 passed \(2\)/)

        writeFileSync(join(app.dir, "without-vitest.mjs"), withoutVitest)
        const load = (specifier: string) =>
          node(app.dir, [
            "--import",
            "./without-vitest.mjs",
            "--input-type=module",
            "-e",
            `const kit = await import(${JSON.stringify(specifier)}); console.log(Object.keys(kit).sort().join(" "))`
          ])
        const kit = await load("@catalog-sync/core/domain-kit")
        expect(kit.status, kit.output).toBe(0)
        expect(kit.output.trim().split(" ")).toEqual(
          expect.arrayContaining(["Arbitraries", "ReferenceModel", "forAllWorlds", "checkModel", "memoryPorts"])
        )
        // The hooks do refuse vitest: the entry with the vitest suites does not load under them.
        const testing = await load("@catalog-sync/core/testing")
        expect(testing.status).not.toBe(0)
        expect(testing.output).toContain("vitest is not installed")
      } finally {
        app.remove()
      }
    }
  )
})

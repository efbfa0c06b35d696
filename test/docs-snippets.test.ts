/**
 * Every code block of the README and docs/ in a language a reader runs (shell, JavaScript, TypeScript) runs
 * as shown against a started server, page by page in the order a reader meets them, so that a page cannot
 * drift from the server:
 *
 * - shell blocks run with bash, in one session per page (a variable set in one block is there in the next),
 *   with `CATALOG_SYNC_URL` and `CATALOG_SYNC_KEY` set as `catalog-sync quickstart` sets them and the admin
 *   CLI on the server's database; a command that fails fails the page, and so does an answer with an
 *   `error.code` the block does not name (a block that shows a refusal says so: "gives 409 revision_conflict");
 * - JavaScript blocks run with node as `.mjs` files in the page's folder of the clone, where the packages'
 *   builds are what they import, as a reader's script does;
 * - TypeScript blocks typecheck against the packages' published declarations and run with their types
 *   stripped.
 *
 * A block that cannot run says why in an HTML comment before it, `<!-- not run: reason -->`; a block that
 * shows part of a file names it, `<!-- excerpt: path -->`, and its parts (separated by a `// …` line) must
 * be found in that file. Other languages (json, sql, nginx, yaml, output) are not run.
 */
import { Shelves } from "@catalog-sync/portal"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFile, spawn } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import ts from "typescript"
import { TestServer, TestServerWith } from "../packages/server/test/TestServer.js"

const root = fileURLToPath(new URL("..", import.meta.url))
const read = (path: string) => readFileSync(join(root, path), "utf8")
const run = promisify(execFile)

type Language = "shell" | "javascript" | "typescript"
const languages: Record<string, Language> = {
  sh: "shell",
  bash: "shell",
  shell: "shell",
  js: "javascript",
  javascript: "javascript",
  mjs: "javascript",
  ts: "typescript",
  typescript: "typescript"
}

interface Block {
  readonly page: string
  /** The line of its opening fence. */
  readonly line: number
  readonly language: Language | undefined
  readonly code: string
  /** The HTML comment right before it: `not run: ...` or `excerpt: ...`. */
  readonly note: string | undefined
}

/** The fenced code blocks of a page, in order, with the comment before each (indented fences included). */
const blocksOf = (page: string): ReadonlyArray<Block> => {
  const lines = read(page).split("\n")
  const blocks: Array<Block> = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})\s*([\w-]*)/.exec(lines[i]!)
    if (open === null) continue
    const [, indent = "", fence = "```", info = ""] = open
    let end = i + 1
    while (end < lines.length && !lines[end]!.trim().startsWith(fence)) end++
    const previous = lines
      .slice(0, i)
      .reverse()
      .find((line) => line.trim() !== "")
    blocks.push({
      page,
      line: i + 1,
      language: languages[info.toLowerCase()],
      code: lines
        .slice(i + 1, end)
        .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
        .join("\n"),
      note: /^\s*<!--\s*(.*?)\s*-->\s*$/.exec(previous ?? "")?.[1]
    })
    i = end
  }
  return blocks
}

/** The README first, then the guides shelf by shelf, then any other page: the order a reader meets them. */
const pages = [
  "README.md",
  ...[
    ...Shelves.shelves.flatMap((shelf) => shelf.guides),
    ...readdirSync(join(root, "docs"))
      .filter((name) => name.endsWith(".md"))
      .map((name) => name.slice(0, -3))
      .sort()
  ]
    .filter((slug, index, all) => all.indexOf(slug) === index && existsSync(join(root, "docs", `${slug}.md`)))
    .map((slug) => `docs/${slug}.md`)
]
const blocks = pages.flatMap(blocksOf)
const where = (block: Block) => `${block.page}:${block.line}`
const skipped = (block: Block) => block.note !== undefined && /^(not run|excerpt):/.test(block.note)
const runnable = blocks.filter((block) => block.language !== undefined && !skipped(block))

/** `ts` and `js` code as node runs it: TypeScript with its types stripped. */
const javascriptOf = (block: Block) =>
  block.language === "typescript"
    ? ts.transpileModule(block.code, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true }
      }).outputText
    : block.code

describe("the docs' code blocks", () => {
  it("opt out of running only with a reason, and an excerpt is found in the file it names", () => {
    const problems = blocks.flatMap((block) => {
      const note = block.note
      if (note === undefined || !/^(not run|excerpt)\b/.test(note)) return []
      if (note.startsWith("not run")) return /^not run: \S.{9,}/.test(note) ? [] : [`${where(block)}: no reason given`]
      const path = /^excerpt: (\S+)$/.exec(note)?.[1]
      if (path === undefined || !existsSync(join(root, path))) return [`${where(block)}: no file ${path}`]
      const flat = (text: string) => text.replace(/\s+/g, " ").trim()
      const file = flat(read(path))
      return block.code
        .split(/^\s*\/\/ …\s*$/m)
        .filter((part) => !file.includes(flat(part)))
        .map((part) => `${where(block)}: not in ${path}: ${flat(part).slice(0, 80)}…`)
    })
    expect(problems).toEqual([])
    const notRun = blocks.filter((block) => block.note?.startsWith("not run") === true)
    // Few and justified: each one installs, starts servers, or needs a database or bucket of the reader's.
    expect(notRun.length).toBeLessThanOrEqual(8)
  })

  it("in TypeScript typecheck against the packages' published declarations", { timeout: 120_000 }, async () => {
    const typescript = runnable.filter((block) => block.language === "typescript")
    expect(typescript.length).toBeGreaterThan(0)
    const dir = join(root, "build", `snippets-types-${process.pid}`)
    mkdirSync(dir, { recursive: true })
    try {
      for (const block of typescript)
        writeFileSync(join(dir, `${block.page.replace(/\W/g, "-")}-${block.line}.ts`), block.code)
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          extends: "../../tsconfig.base.json",
          compilerOptions: {
            composite: false,
            declaration: false,
            declarationMap: false,
            emitDeclarationOnly: false,
            noEmit: true,
            // What a project that installed the packages sees: their declarations, not their sources.
            customConditions: []
          },
          include: ["*.ts"]
        })
      )
      const tsc = join(root, "node_modules", "typescript", "bin", "tsc")
      const result = await run(process.execPath, [tsc, "-p", dir], { cwd: root }).then(
        () => "",
        (error: { stdout?: string }) => error.stdout ?? String(error)
      )
      expect(result).toBe("")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

/** The workspace packages a script imports, with the workspace packages they depend on. */
const packagesOf = (code: string): ReadonlySet<string> => {
  const folders = new Map(
    readdirSync(join(root, "packages")).map((folder) => [
      JSON.parse(read(`packages/${folder}/package.json`)).name as string,
      folder
    ])
  )
  const found = new Set<string>()
  const add = (name: string) => {
    const folder = folders.get(name)
    if (folder === undefined || found.has(folder)) return
    found.add(folder)
    const manifest = JSON.parse(read(`packages/${folder}/package.json`))
    for (const dependency of Object.keys(manifest.dependencies ?? {})) add(dependency)
  }
  for (const [, name] of code.matchAll(/from "(@catalog-sync\/[a-z0-9-]+)/g)) add(name!)
  return found
}

const newest = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce(
    (latest, entry) =>
      Math.max(latest, entry.isDirectory() ? newest(join(dir, entry.name)) : statSync(join(dir, entry.name)).mtimeMs),
    0
  )

/** Rebuilds a package whose build is older than its sources (npm install built them; an edit since has not). */
const freshBuild = async (folder: string) => {
  const dir = join(root, "packages", folder)
  const dist = join(dir, "dist")
  if (existsSync(dist) && newest(join(dir, "src")) <= newest(dist)) return
  // Without emptying dist first: other test files may be loading it.
  await run(join(root, "node_modules", ".bin", "tsup"), ["--silent", "--no-clean"], { cwd: dir })
}

interface Ran {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const bash = (script: string, cwd: string, env: Record<string, string>) =>
  Effect.callback<Ran>((resume) => {
    const child = spawn("bash", ["-c", script], { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => void (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()))
    child.on("close", (code) => resume(Effect.succeed({ code, stdout, stderr })))
    // Whatever a block left running goes with the page.
    return Effect.sync(() => {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, "SIGKILL")
    })
  })

const marker = (block: Block) => `@@ ${where(block)} @@`

/** The error codes of the API's answers in a block's output. */
const errorCodes = (output: string) => [...output.matchAll(/"error":\{"code":"([a-z_]+)"/g)].map(([, code]) => code!)

// The server these pages talk to: SQLite in a temp folder, its admin CLI on the same database.
layer(TestServerWith({}, {}, { database: "sqlite" }), { excludeTestServices: true, timeout: 120_000 })(
  "the docs' code blocks, run page by page against a started server",
  (it) => {
    const byPage = pages
      .map((page) => ({ page, blocks: runnable.filter((block) => block.page === page) }))
      .filter(({ blocks }) => blocks.length > 0)

    for (const { page, blocks } of byPage)
      it.effect(
        `${page}: ${blocks.map((block) => `${block.line} (${block.language})`).join(", ")}`,
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const dir = join(root, "build", `snippets-${process.pid}`, page.replace(/\W/g, "-"))
            yield* Effect.acquireRelease(
              Effect.sync(() => mkdirSync(dir, { recursive: true })),
              () => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
            )
            const env: Record<string, string> = {
              ...(Object.fromEntries(
                Object.entries(process.env).filter(
                  ([name]) => !/^(DATABASE_URL|SQLITE_FILE|MEDIA_|S3_|TEST_DATABASE|CATALOG_SYNC_)/.test(name)
                )
              ) as Record<string, string>),
              DATA_DIR: server.dataDir,
              HOST: "127.0.0.1",
              PORT: new URL(server.url).port,
              LOG_LEVEL: "warning"
            }
            // A reader's shell after the quickstart: the server's URL and a key of the demo company.
            const quickstart = yield* Effect.promise(() =>
              run("npm", ["run", "-s", "cli", "--", "quickstart"], { cwd: root, env })
            )
            const exported = /CATALOG_SYNC_URL='([^']+)' CATALOG_SYNC_KEY='([^']+)'/.exec(quickstart.stdout)
            expect(exported, quickstart.stdout + quickstart.stderr).not.toBeNull()
            Object.assign(env, { CATALOG_SYNC_URL: exported![1], CATALOG_SYNC_KEY: exported![2] })

            for (const folder of new Set(blocks.flatMap((block) => [...packagesOf(block.code)])))
              yield* Effect.promise(() => freshBuild(folder))
            const script = [
              "set -e",
              ...blocks.map((block) => {
                const announce = `printf '\\n${marker(block)}\\n'; printf '\\n${marker(block)}\\n' >&2`
                if (block.language === "shell") return `${announce}\n${block.code}`
                const file = join(dir, `block-${block.line}.mjs`)
                writeFileSync(file, javascriptOf(block))
                return `${announce}\nnode ${JSON.stringify(file)}`
              })
            ].join("\n")
            const ran = yield* bash(script, dir, env)
            const last = [...ran.stdout.matchAll(/@@ (\S+) @@/g)].at(-1)?.[1]
            expect(ran.code, `${last ?? page} failed:\n${ran.stderr.slice(-3000)}\n${ran.stdout.slice(-2000)}`).toBe(0)

            // An answer that is an error must be one the block shows on purpose.
            const unexpected = blocks.flatMap((block) => {
              const output = ran.stdout.split(marker(block))[1]?.split(/@@ \S+ @@/)[0] ?? ""
              return errorCodes(output)
                .filter((code) => !block.code.includes(code))
                .map((code) => `${where(block)}: an answer with error code ${code}, which the block does not name`)
            })
            expect(unexpected, ran.stdout.slice(-3000)).toEqual([])
          }),
        240_000
      )
  }
)

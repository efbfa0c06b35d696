/**
 * The API reference of the published packages, generated with TypeDoc from their sources: one module per
 * entry a package.json's `exports` names (`@catalog-sync/core`, `@catalog-sync/core/memory`, …), holding
 * what that entry exports and nothing else, so modules under `src/internal/` appear only through what a
 * public module re-exports from them.
 *
 * - `npm run docs` writes the HTML reference to docs/api (open docs/api/index.html).
 * - `node scripts/api-reference.mjs --check` writes nothing and fails when a public export has no doc
 *   comment or an `@example` code block of one does not typecheck against the packages' sources
 *   (test/api-reference.test.ts runs it in `npm test`).
 *
 * The pages leave out what a class inherits from a dependency's types (a service's constructor from
 * `Context.Service`, an error's members from `Data.TaggedError`), and the index describes each module
 * with the first paragraph of its doc comment (typedoc.json: `useFirstParagraphOfCommentAsSummary`).
 * typedoc.json's `maxTypeConversionDepth` stops the expansion of inferred types after 8 levels, deeper
 * than the pages print them: it took the client's largest page from 1.8 to 1.2 MB.
 * test/api-reference-pages.test.ts renders a planted package to check the pages.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { basename, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { Application, Comment, Converter, ReflectionKind, TypeDocReader } from "typedoc"
import ts from "typescript"

const root = fileURLToPath(new URL("..", import.meta.url))

/** Workspace packages that are not published for others to import. */
const unpublished = new Set(["@catalog-sync/portal"])

/** The packages whose modules others re-export, first: a re-exported module is documented where it is made. */
const first = ["@catalog-sync/core", "@catalog-sync/contract", "@catalog-sync/client"]
const rank = (name) => (first.includes(name) ? first.indexOf(name) : first.length)

/** `{ specifier, file }` of every entry the packages under `base`/packages export, read from their manifests. */
export const publicEntries = (base = root) =>
  readdirSync(join(base, "packages"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(base, "packages", entry.name))
    .sort((a, b) => rank(`@catalog-sync/${basename(a)}`) - rank(`@catalog-sync/${basename(b)}`) || a.localeCompare(b))
    .flatMap((dir) => {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
      if (manifest.private === true || unpublished.has(manifest.name)) return []
      return Object.entries(manifest.exports ?? {}).map(([path, target]) => ({
        specifier: path === "." ? manifest.name : `${manifest.name}/${path.slice(2)}`,
        file: join(dir, target["@catalog-sync/source"])
      }))
    })

/** The compiler options of the packages (tsconfig.base.json), for one program over all of them. */
const compilerOptions = (base) => {
  const { config } = ts.readConfigFile(join(base, "tsconfig.base.json"), ts.sys.readFile)
  const { options } = ts.convertCompilerOptionsFromJson(config.compilerOptions, base)
  return {
    ...options,
    composite: false,
    declaration: false,
    declarationMap: false,
    emitDeclarationOnly: false,
    noEmit: true,
    // The client runs in browsers too (packages/client/tsconfig.json).
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    plugins: []
  }
}

const textOf = (parts) => (parts ?? []).map((part) => part.text).join("")
const hasSummary = (comment) => comment !== undefined && textOf(comment.summary).trim() !== ""
const isDocumented = (reflection) =>
  hasSummary(reflection.comment) || (reflection.signatures ?? []).some((signature) => hasSummary(signature.comment))
const isType = (reflection) => reflection.kindOf(ReflectionKind.TypeAlias | ReflectionKind.Interface)

/** Declared in the packages' sources, not in a dependency (whose members a class may inherit). */
const isOurs = (reflection, base) => {
  const file = reflection.sources?.[0]?.fullFileName
  return file !== undefined && file.startsWith(join(base, "packages")) && !file.includes("node_modules")
}

const whereOf = (base, reflection) => {
  const source = reflection.sources?.[0] ?? reflection.signatures?.[0]?.sources?.[0]
  return source === undefined ? "" : ` (${relative(base, source.fullFileName)}:${source.line})`
}

/**
 * The doc comment a module file opens with, before its imports or re-exports (TypeDoc reads it only from
 * an entry, and there only with `@packageDocumentation`).
 */
const headerOf = (file) => {
  const header = /^\/\*\*([\s\S]*?)\*\/\s*\n(?:import|export (?:type )?\{|export \*)/.exec(readFileSync(file, "utf8"))
  if (header === null) return undefined
  const text = header[1]
    .split("\n")
    .map((line) => line.replace(/^\s*\* ?/, ""))
    .join("\n")
    .trim()
  return text === "" ? undefined : new Comment([{ kind: "text", text }])
}

/**
 * Names each module by the entry it documents, gives a namespace (`export * as X from "./X.js"`) the
 * header of its file, and gives the type of a `const X = Schema…` + `type X = typeof X.Type` pair the
 * comment of its value, which describes both.
 */
const shapeProject = (project, entries) => {
  const specifierOf = new Map(entries.map((entry) => [entry.file, entry.specifier]))
  for (const module of project.children ?? []) {
    const file = module.sources?.[0]?.fullFileName
    const specifier = file === undefined ? undefined : specifierOf.get(file)
    if (specifier !== undefined) module.name = specifier
  }
  for (const namespace of project.getReflectionsByKind(ReflectionKind.Namespace)) {
    const file = namespace.sources?.[0]?.fullFileName
    if (!isDocumented(namespace) && file !== undefined && namespace.sources[0].line === 1)
      namespace.comment = headerOf(file)
  }
  for (const reflection of Object.values(project.reflections)) {
    if (!isType(reflection) || isDocumented(reflection)) continue
    const value = reflection.parent?.children?.find(
      (sibling) => sibling !== reflection && sibling.name === reflection.name && !isType(sibling)
    )
    const comment = value?.comment ?? value?.signatures?.[0]?.comment
    if (comment !== undefined && hasSummary(comment)) reflection.comment = comment.clone()
  }
}

/** `name (file:line)` of every public export without a doc comment: modules, namespaces and their members. */
const undocumented = (project, base) => {
  const missing = []
  const visit = (container, path) => {
    for (const child of container.children ?? []) {
      if (child.kindOf(ReflectionKind.Reference)) continue
      const name = `${path}.${child.name}`
      if (!isDocumented(child)) missing.push(`${name}${whereOf(base, child)}`)
      if (child.kindOf(ReflectionKind.Namespace)) visit(child, name)
    }
  }
  for (const module of project.children ?? []) {
    if (!isDocumented(module)) missing.push(`${module.name}${whereOf(base, module)}`)
    visit(module, module.name)
  }
  // A `const X` + `type X` pair without a comment is one omission.
  return [...new Set(missing)]
}

/** Declared in a dependency's declarations (effect, TypeScript's lib), not in the packages' sources. */
const isTheirs = (reflection) => {
  const sources = [reflection, ...(reflection.signatures ?? [])].flatMap((declared) => declared.sources ?? [])
  return sources.length > 0 && sources.every((source) => source.fullFileName.includes("node_modules"))
}

/**
 * Removes the members a class inherits from a dependency's type: a service's constructor from
 * `Context.Service`, an error's `message`, `cause` and constructor from `Data.TaggedError` and `Error`.
 * They are Effect's and TypeScript's to document (`excludeExternals` drops Effect's own exports, not what
 * our classes inherit from them), and on every service's page they came before its own members.
 */
const hideInherited = (project) => {
  for (const reflection of Object.values(project.reflections))
    if (reflection.kindOf(ReflectionKind.ClassMember) && isTheirs(reflection)) project.removeReflection(reflection)
}

/** The ```ts code blocks of every `@example` in the reference, with the export they document. */
const examplesOf = (project, base) =>
  Object.values(project.reflections)
    .filter((reflection) => isOurs(reflection, base))
    .flatMap((reflection) =>
      (reflection.comment?.blockTags ?? [])
        .filter((tag) => tag.tag === "@example")
        .flatMap((tag) =>
          [...textOf(tag.content).matchAll(/```(?:ts|typescript)\n([\s\S]*?)```/g)].map((match) => ({
            owner: reflection.getFriendlyFullName(),
            code: match[1]
          }))
        )
    )

/** The compiler's complaints about the examples, compiled as files of a reader's project would be. */
const examplesProblems = (examples, program, base) => {
  if (examples.length === 0) return []
  const dir = join(base, "build", `api-examples-${process.pid}`)
  mkdirSync(dir, { recursive: true })
  try {
    const files = examples.map((example, index) => {
      const file = join(dir, `example-${index}.ts`)
      writeFileSync(file, example.code)
      return file
    })
    const checked = ts.createProgram({
      rootNames: [...program.getRootFileNames(), ...files],
      // An example may declare a value only to show it.
      options: { ...program.getCompilerOptions(), noUnusedLocals: false, noUnusedParameters: false },
      oldProgram: program
    })
    return files.flatMap((file, index) => {
      const diagnostics = [
        ...checked.getSyntacticDiagnostics(checked.getSourceFile(file)),
        ...checked.getSemanticDiagnostics(checked.getSourceFile(file))
      ]
      return diagnostics.map((diagnostic) => {
        const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0)
        const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")
        return `example of ${examples[index].owner}, line ${line + 1}: ${message}`
      })
    })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Converts the entries to a TypeDoc project; with `out`, renders it there. Returns the undocumented public
 * exports and the examples that do not typecheck (TypeDoc's own warnings, such as a broken `{@link}`, fail
 * it with an error: typedoc.json treats them as errors).
 */
export const buildReference = async ({ base = root, entries = publicEntries(base), out } = {}) => {
  const app = await Application.bootstrapWithPlugins(
    { entryPoints: entries.map((entry) => entry.file), options: join(root, "typedoc.json") },
    [new TypeDocReader()]
  )
  app.options.setCompilerOptions(
    entries.map((entry) => entry.file),
    compilerOptions(base)
  )
  let program
  app.converter.on(Converter.EVENT_BEGIN, (context) => (program = context.programs[0]))
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => shapeProject(context.project, entries))
  // Before TypeDoc groups a class's members for its page (a higher priority runs first).
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => hideInherited(context.project), 1000)
  const project = await app.convert()
  if (project === undefined || program === undefined) throw new Error("TypeDoc could not convert the entries")
  app.validate(project)
  const warned = app.logger.hasErrors() || (app.options.getValue("treatWarningsAsErrors") && app.logger.hasWarnings())
  const problems = [
    ...(warned ? ["TypeDoc's warnings above"] : []),
    ...undocumented(project, base).map((name) => `no doc comment: ${name}`),
    ...examplesProblems(examplesOf(project, base), program, base)
  ]
  if (out !== undefined && problems.length === 0) await app.generateDocs(project, out)
  return { problems, exports: (project.children?.length ?? 0) + exportCount(project) }
}

/** How many public exports the reference documents (modules, namespaces and their members). */
const exportCount = (project) => {
  let count = 0
  const visit = (container) => {
    for (const child of container.children ?? []) {
      if (child.kindOf(ReflectionKind.Reference)) continue
      count++
      if (child.kindOf(ReflectionKind.Namespace)) visit(child)
    }
  }
  for (const module of project.children ?? []) visit(module)
  return count
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2)
  const check = args.includes("--check")
  // `--base <folder>`: the packages of another tree (the test's fixture), with this tree's settings.
  const base = args.includes("--base") ? resolve(args[args.indexOf("--base") + 1]) : root
  const started = Date.now()
  const out = join(base, "docs", "api")
  if (!check) rmSync(out, { recursive: true, force: true })
  const { problems, exports } = await buildReference({ base, out: check ? undefined : out })
  for (const problem of problems) process.stderr.write(`${problem}\n`)
  if (problems.length > 0) {
    process.stderr.write(`api reference: ${problems.length} problem(s) in ${exports} public exports\n`)
    process.exit(1)
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1)
  const opened = check ? "" : `; open ${relative(process.cwd(), out)}/index.html`
  process.stdout.write(`api reference: ${exports} public exports documented, in ${seconds} s${opened}\n`)
}

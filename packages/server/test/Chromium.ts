/**
 * The Chromium the portal's browser tests drive: the machine's (`CHROMIUM_PATH`, Debian's
 * `/usr/bin/chromium`, or one on PATH), else the one npm installed with the `@sparticuz/chromium`
 * development dependency (Linux x64), whose package ships a compressed Chromium with the few libraries it
 * needs beyond glibc. That one is unpacked once per version into the cache folder
 * (`$XDG_CACHE_HOME/catalog-sync`, else `~/.cache/catalog-sync`).
 */
import { spawn } from "node:child_process"
import {
  accessSync,
  constants,
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync
} from "node:fs"
import { createRequire } from "node:module"
import { homedir } from "node:os"
import { delimiter, dirname, join } from "node:path"
import { pipeline } from "node:stream/promises"
import { createBrotliDecompress } from "node:zlib"

/** A browser to launch: its executable and what its environment needs on top of this process's. */
export interface Chromium {
  readonly executablePath: string
  readonly env: Record<string, string>
  readonly source: string
}

const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** The machine's Chromium: CHROMIUM_PATH when set, else Debian's, else the first one on PATH. */
const machineChromium = (): string | undefined => {
  const configured = process.env.CHROMIUM_PATH
  if (configured !== undefined && configured !== "") return configured
  const dirs = (process.env.PATH ?? "").split(delimiter).filter((dir) => dir !== "")
  const names = ["chromium", "chromium-browser", "google-chrome-stable", "google-chrome"]
  return ["/usr/bin/chromium", ...names.flatMap((name) => dirs.map((dir) => join(dir, name)))].find(executable)
}

/** The `bin` folder of the installed @sparticuz/chromium package and its version, if installed. */
const npmPackage = (): { readonly bin: string; readonly version: string } | undefined => {
  // Its Chromium is a Linux x64 build.
  if (process.platform !== "linux" || process.arch !== "x64") return undefined
  try {
    // Its exports map hides package.json: found above the entry point.
    const manifest = (dir: string) =>
      existsSync(join(dir, "package.json"))
        ? (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; version?: string })
        : {}
    let home = dirname(createRequire(import.meta.url).resolve("@sparticuz/chromium"))
    while (manifest(home).name !== "@sparticuz/chromium" && dirname(home) !== home) home = dirname(home)
    const { version } = manifest(home)
    const bin = join(home, "bin")
    return version !== undefined && existsSync(join(bin, "chromium.br")) ? { bin, version } : undefined
  } catch {
    return undefined
  }
}

const cacheRoot = () => join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "catalog-sync")

const untar = (archive: string, into: string) =>
  new Promise<void>((resolve, reject) => {
    const tar = spawn("tar", ["-x", "-C", into], { stdio: ["pipe", "ignore", "inherit"] })
    tar.once("error", reject)
    tar.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`tar exited with ${code} on ${archive}`))))
    pipeline(createReadStream(archive), createBrotliDecompress(), tar.stdin).catch(reject)
  })

/** Unpacks the package's Chromium, its libraries and its fonts into the cache, once per version. */
const unpack = async (bin: string, version: string): Promise<Chromium> => {
  const home = join(cacheRoot(), `sparticuz-chromium-${version}`)
  const env = {
    // NSS, NSPR and expat, which a machine with nothing but Node lacks.
    LD_LIBRARY_PATH: [join(home, "lib"), process.env.LD_LIBRARY_PATH].filter(Boolean).join(delimiter),
    // The package's fonts beside the machine's, so that text has a face where the machine has none.
    FONTCONFIG_FILE: join(home, "fonts.conf")
  }
  const executablePath = join(home, "chromium")
  if (executable(executablePath)) return { executablePath, env, source: `@sparticuz/chromium ${version}` }
  mkdirSync(dirname(home), { recursive: true })
  const partial = mkdtempSync(`${home}.partial-`)
  try {
    await pipeline(
      createReadStream(join(bin, "chromium.br")),
      createBrotliDecompress(),
      createWriteStream(join(partial, "chromium"), { mode: 0o755 })
    )
    await untar(join(bin, "al2023.tar.br"), partial)
    await untar(join(bin, "fonts.tar.br"), partial)
    writeFileSync(
      join(partial, "fonts.conf"),
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>/usr/share/fonts</dir>\n  <dir>${join(home, "fonts")}</dir>\n  <cachedir>${join(home, "fonts-cache")}</cachedir>\n</fontconfig>\n`
    )
    rmSync(home, { recursive: true, force: true })
    // Renamed whole, so that an unpacking cut off halfway never looks complete.
    renameSync(partial, home)
  } finally {
    rmSync(partial, { recursive: true, force: true })
  }
  return { executablePath, env, source: `@sparticuz/chromium ${version}` }
}

/** The machine's Chromium, else npm's; `undefined` when there is neither. */
export const findChromium = async (): Promise<Chromium | undefined> => {
  const machine = machineChromium()
  if (machine !== undefined) return { executablePath: machine, env: {}, source: machine }
  const npm = npmPackage()
  return npm === undefined ? undefined : unpack(npm.bin, npm.version)
}

/** Whether a Chromium can be had here, without unpacking one. */
export const chromiumAvailable = () => machineChromium() !== undefined || npmPackage() !== undefined

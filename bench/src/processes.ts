/**
 * The servers under test and the baselines, each a child process on loopback: started (ready once GET
 * /health answers), watched (RSS, memory after a full GC over the inspector) and stopped.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { createServer } from "node:net"
import { WebSocket } from "undici"
import { root } from "./options.js"

export interface Child {
  readonly name: string
  readonly url: string
  readonly process: ChildProcess
  readonly stop: () => Promise<void>
  /** What it wrote to stderr so far. */
  readonly stderr: () => string
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })

export const children: Array<Child> = []

export const start = async (name: string, argv: Array<string>, env: Record<string, string> = {}): Promise<Child> => {
  const port = await freePort()
  const child = spawn(
    process.execPath,
    argv.map((a) => a.replace("$PORT", String(port))),
    {
      cwd: root,
      // Every load generator connects from 127.0.0.1: the per-address cap would refuse the overload's 128.
      env: {
        ...process.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        LOG_LEVEL: "warn",
        HTTP_MAX_CONNECTIONS_PER_ADDRESS: "1000",
        ...env
      },
      stdio: ["ignore", "ignore", "pipe"]
    }
  )
  let stderr = ""
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited: ${stderr}`)
    try {
      const response = await fetch(`${url}/health`)
      if (response.ok) break
    } catch {
      // not listening yet
    }
    if (i > 300) throw new Error(`${name} did not start: ${stderr}`)
    await sleep(50)
  }
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve()
      child.once("exit", () => resolve())
      child.kill("SIGTERM")
      setTimeout(() => child.kill("SIGKILL"), 10_000).unref()
    })
  const handle = { name, url, process: child, stop, stderr: () => stderr }
  children.push(handle)
  return handle
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export const rssMb = (child: Child): number => {
  try {
    const status = readFileSync(`/proc/${child.process.pid}/status`, "utf8")
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN)
    return Math.round(kb / 102.4) / 10
  } catch {
    return Number.NaN
  }
}

/**
 * The memory of a child started with `--inspect=127.0.0.1:0`, read after a full garbage collection over the
 * DevTools protocol: what it holds live, whatever point of its collection cycle it was at.
 */
export const inspectMemory = async (child: Child) => {
  for (let i = 0; !/ws:\/\/\S+/.test(child.stderr()); i++) {
    if (i > 200) throw new Error(`${child.name} printed no inspector URL`)
    await sleep(50)
  }
  const socket = new WebSocket(/(ws:\/\/\S+)/.exec(child.stderr())![1]!)
  await new Promise((resolve, reject) => {
    socket.onopen = resolve
    socket.onerror = reject
  })
  /** An inspector protocol reply: its request's id and, for `Runtime.evaluate`, the value it returned. */
  type Reply = { readonly id: number; readonly result?: { readonly result?: { readonly value?: string } } }
  const pending = new Map<number, (reply: Reply) => void>()
  socket.onmessage = (event) => {
    const reply = JSON.parse(String(event.data)) as Reply
    pending.get(reply.id)?.(reply)
    pending.delete(reply.id)
  }
  let next = 0
  const send = (method: string, params: object = {}) =>
    new Promise<Reply>((resolve) => {
      const id = ++next
      pending.set(id, resolve)
      socket.send(JSON.stringify({ id, method, params }))
    })
  return {
    afterGc: async (): Promise<{ readonly rss: number; readonly heapUsed: number }> => {
      await send("HeapProfiler.collectGarbage")
      const reply = await send("Runtime.evaluate", {
        expression: "JSON.stringify(process.memoryUsage())",
        returnByValue: true
      })
      const usage = JSON.parse(reply.result?.result?.value ?? "") as { readonly rss: number; readonly heapUsed: number }
      const mb = (bytes: number) => Math.round(bytes / 1024 / 102.4) / 10
      return { rss: mb(usage.rss), heapUsed: mb(usage.heapUsed) }
    },
    close: () => socket.close()
  }
}

export const serverArgs = (profileDir: string | undefined) => [
  ...(profileDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`]),
  "packages/server/dist/cli.js",
  "serve"
]

export const runNode = (argv: Array<string>) =>
  new Promise<string>((resolve, reject) =>
    execFile(process.execPath, argv, { cwd: root, maxBuffer: 16 * 2 ** 20 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${argv.join(" ")}: ${stderr}`)) : resolve(stdout)
    )
  )

import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type BrowserContext, chromium } from "playwright-core"
import { TestServer, TestServerLive } from "./TestServer.js"

/** Headless Debian Chromium (`apt-get install -y chromium`), in a fresh profile, with nothing phoning home. */
const launch = Effect.acquireRelease(
  Effect.promise(async () => {
    const profile = mkdtempSync(join(tmpdir(), "catalog-sync-chromium-"))
    // A new, empty profile: launchPersistentContext passes it as --user-data-dir.
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync"
      ]
    })
    return { browser, profile }
  }),
  ({ browser, profile }) =>
    Effect.promise(async () => {
      await browser.close()
      rmSync(profile, { recursive: true, force: true })
    })
)

const withPage = <A>(browser: BrowserContext, f: (page: Awaited<ReturnType<BrowserContext["newPage"]>>) => Promise<A>) =>
  Effect.acquireUseRelease(
    Effect.promise(() => browser.newPage()),
    (page) => Effect.promise(() => f(page)),
    (page) => Effect.promise(() => page.close())
  )

layer(TestServerLive, { excludeTestServices: true, timeout: 60_000 })("developer portal in a real browser", (it) => {
  it.scoped("shows every endpoint, opens an operation and follows a guide link", () =>
    Effect.gen(function* () {
      const { url } = yield* TestServer
      const spec = yield* Effect.promise(() => fetch(`${url}/docs/openapi.json`).then((r) => r.json() as Promise<any>))
      const paths = Object.keys(spec.paths)
      expect(paths).toContain("/api/v1/products/{id}")
      const { browser } = yield* launch
      const offsite: Array<string> = []

      yield* withPage(browser, async (page) => {
        // The portal must work offline: any request that leaves the server is a failure.
        page.on("request", (request) => {
          if (!request.url().startsWith(url) && !request.url().startsWith("data:") && !request.url().startsWith("blob:")) offsite.push(request.url())
        })
        const response = await page.goto(`${url}/docs`)
        expect(response?.status()).toBe(200)
        expect(page.url()).toBe(`${url}/docs/`)
        const listed = await page.locator("#endpoints .endpoint-path").allTextContents()
        expect(new Set(listed)).toEqual(new Set(paths))

        // The reference (Scalar, rendered in the browser) lists every endpoint path in its tag overviews.
        await page.getByRole("link", { name: "Open the API reference" }).click()
        await page.waitForURL(/reference\.html/)
        await page.getByText("/api/v1/products/{id}").first().waitFor({ timeout: 20_000 })
        const overview = await page.locator("body").innerText()
        for (const path of paths) expect(overview).toContain(path)

        // Open one operation from the endpoint table: Scalar renders it, with scopes, body and error codes.
        await page.goto(`${url}/docs/`)
        await page.locator("#endpoints tr", { hasText: "Archive a product" }).getByRole("link").click()
        await page.waitForURL(/reference\.html#tag\/products\/delete\/api\/v1\/products\//)
        await page.getByText("Scopes: catalog:write").first().waitFor({ timeout: 20_000 })
        const text = await page.locator("body").innerText()
        expect(text).toContain("revision_conflict")

        await page.goto(`${url}/docs/`)
        await page.locator("nav.guides").getByRole("link", { name: "Error codes" }).click()
        await page.waitForURL(/guides\/errors\.html/)
        expect(await page.locator("h1").first().innerText()).toBe("Error codes")
      })
      expect(offsite).toEqual([])
    }))
})

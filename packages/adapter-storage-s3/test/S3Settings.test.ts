import { S3Errors, S3Settings } from "@catalog-sync/adapter-storage-s3"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Option, Redacted, Result } from "effect"
import fc from "fast-check"

const load = (env: Record<string, string>) =>
  Effect.result(S3Settings.S3Config.parse(ConfigProvider.fromEnvRecord(env)))

describe("S3 settings", () => {
  it.effect("reads the bucket, endpoint, path style, prefix and keys; the secret stays redacted", () =>
    Effect.gen(function* () {
      const settings = Result.getOrThrow(
        yield* load({
          S3_BUCKET: "furniture-media",
          S3_ENDPOINT: "http://127.0.0.1:9000",
          S3_REGION: "eu-central-1",
          S3_FORCE_PATH_STYLE: "true",
          S3_PREFIX: "catalog",
          S3_ACCESS_KEY_ID: "AKIAEXAMPLE",
          S3_SECRET_ACCESS_KEY: "very-secret"
        })
      )
      expect(settings).toMatchObject({
        bucket: "furniture-media",
        region: "eu-central-1",
        forcePathStyle: true,
        prefix: "catalog/"
      })
      expect(settings.endpoint).toEqual(Option.some("http://127.0.0.1:9000"))
      const keys = Option.getOrThrow(settings.keys)
      expect(String(keys.secretAccessKey)).not.toContain("very-secret")
      expect(Redacted.value(keys.secretAccessKey)).toBe("very-secret")
      // Without keys the AWS credential chain applies; region defaults like the SDK's.
      const chain = Result.getOrThrow(yield* load({ S3_BUCKET: "media" }))
      expect({ keys: chain.keys, region: chain.region, prefix: chain.prefix, path: chain.forcePathStyle }).toEqual({
        keys: Option.none(),
        region: "us-east-1",
        prefix: "",
        path: false
      })
    })
  )

  it.effect("refuses a missing or invalid bucket, half a key pair, a bad endpoint or prefix, naming the variable", () =>
    Effect.gen(function* () {
      const cases: Array<[Record<string, string>, string]> = [
        [{}, "S3_BUCKET"],
        [{ S3_BUCKET: "" }, "S3_BUCKET"],
        [{ S3_BUCKET: "Has_Upper" }, "S3_BUCKET"],
        [{ S3_BUCKET: "media", S3_ACCESS_KEY_ID: "AKIA" }, "S3_SECRET_ACCESS_KEY"],
        [{ S3_BUCKET: "media", S3_SECRET_ACCESS_KEY: "x" }, "S3_ACCESS_KEY_ID"],
        [{ S3_BUCKET: "media", S3_ENDPOINT: "minio:9000" }, "S3_ENDPOINT"],
        [{ S3_BUCKET: "media", S3_PREFIX: "/abs" }, "S3_PREFIX"],
        [{ S3_BUCKET: "media", S3_PREFIX: "a/../b" }, "S3_PREFIX"],
        [{ S3_BUCKET: "media", S3_FORCE_PATH_STYLE: "maybe" }, "S3_FORCE_PATH_STYLE"]
      ]
      for (const [env, variable] of cases) {
        const result = yield* load(env)
        expect(Result.isFailure(result), JSON.stringify(env)).toBe(true)
        if (Result.isFailure(result)) expect(String(result.failure)).toContain(variable)
      }
    })
  )

  it("maps S3 failures: credentials and refusals are denied, missing keys not_found, the rest unavailable", () => {
    const error = (name: string, status?: number) =>
      Object.assign(new Error("details"), {
        name,
        ...(status === undefined ? {} : { $metadata: { httpStatusCode: status } })
      })
    for (const name of [
      "AccessDenied",
      "InvalidAccessKeyId",
      "SignatureDoesNotMatch",
      "ExpiredToken",
      "NoSuchBucket",
      "CredentialsProviderError"
    ]) {
      expect(S3Errors.reasonOf(error(name, name === "CredentialsProviderError" ? undefined : 403)), name).toBe("denied")
    }
    expect(S3Errors.reasonOf(error("NoSuchKey", 404))).toBe("not_found")
    expect(S3Errors.reasonOf(error("NotFound", 404))).toBe("not_found")
    expect(S3Errors.reasonOf(error("SlowDown", 503))).toBe("unavailable")
    expect(S3Errors.reasonOf(Object.assign(new Error("connect"), { code: "ECONNREFUSED" }))).toBe("unavailable")
    expect(S3Errors.reasonOf("not an error")).toBe("unavailable")
    // Whatever the code, a 403 is a refusal, and a 5xx or a throttle never pauses processing.
    fc.assert(fc.property(fc.string(), (name) => S3Errors.reasonOf(error(name, 403)) === "denied"))
    fc.assert(
      fc.property(
        fc
          .string()
          .filter(
            (n) =>
              ![
                "AccessDenied",
                "AllAccessDisabled",
                "AccountProblem",
                "InvalidAccessKeyId",
                "SignatureDoesNotMatch",
                "ExpiredToken",
                "InvalidToken",
                "TokenRefreshRequired",
                "NoSuchBucket",
                "CredentialsProviderError",
                "NoSuchKey",
                "NotFound"
              ].includes(n)
          ),
        fc.integer({ min: 429, max: 599 }).filter((s) => s === 429 || s >= 500),
        (name, status) => S3Errors.reasonOf(error(name, status)) === "unavailable"
      )
    )
  })

  it("normalizes prefixes to folder form", () => {
    expect(S3Settings.normalizePrefix("")).toEqual(Result.succeed(""))
    expect(S3Settings.normalizePrefix("a/b")).toEqual(Result.succeed("a/b/"))
    expect(S3Settings.normalizePrefix("a/b/")).toEqual(Result.succeed("a/b/"))
    expect(Result.isFailure(S3Settings.normalizePrefix("a//b"))).toBe(true)
  })
})

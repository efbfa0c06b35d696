import { describe, expect, it } from "vitest"
import { parse } from "./PrometheusText.js"

describe("the strict Prometheus text reader of the tests", () => {
  it("reads counters, gauges and histograms with escaped labels", () => {
    const families = parse(
      [
        "# HELP c_total requests",
        "# TYPE c_total counter",
        'c_total{route="/a/:id",quote="say \\"hi\\""} 3',
        "# TYPE g gauge",
        "g 1.5e2",
        "# TYPE h histogram",
        'h_count{k="x"} 2',
        'h_sum{k="x"} 0.3',
        'h_bucket{k="x",le="0.1"} 1',
        'h_bucket{k="x",le="+Inf"} 2'
      ].join("\n")
    )
    expect(families.map((f) => [f.name, f.type, f.samples.length])).toEqual([
      ["c_total", "counter", 1],
      ["g", "gauge", 1],
      ["h", "histogram", 4]
    ])
    expect(families[0]!.samples[0]!.labels).toEqual({ route: "/a/:id", quote: 'say "hi"' })
    expect(families[1]!.samples[0]!.value).toBe(150)
  })

  it.each([
    ["a bad name", "# TYPE 1x counter\n1x 1"],
    ["a value that is no number", "# TYPE c counter\nc one"],
    ["an unquoted label", "# TYPE c counter\nc{a=b} 1"],
    ["an unterminated label", '# TYPE c counter\nc{a="b} 1'],
    ["buckets that are not cumulative", '# TYPE h histogram\nh_bucket{le="1"} 3\nh_bucket{le="+Inf"} 2\nh_count 2'],
    ["a +Inf bucket unlike the count", '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_count 3'],
    ["a TYPE after the samples", "c 1\n# TYPE c counter"]
  ])("refuses %s", (_, text) => {
    expect(() => parse(text)).toThrow()
  })
})

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KitError } from "../../errors.js";
import { tempDir } from "../../../test/temp-dir.js";
import { createRedactor } from "../redact.js";
import type { CaseResult, ReportedFinding, RunSummary } from "../results.js";
import { writeErrorReports, writeReports } from "./files.js";
import { esc, HTML_REPORT_CSP, htmlErrorReport, htmlReport } from "./html.js";

// Text a hostile target could send back: markup, an event handler, a script URL, links out.
const HOSTILE = [
  "<script>alert(1)</script>",
  '"><img src=x onerror=alert(2)>',
  "' onmouseover='alert(3)",
  '<a href="javascript:alert(4)">click</a>',
  "javascript:alert(5)",
  "https://evil.example/track.png",
  "<iframe src=//evil.example></iframe>",
  "<style>body{background:url(https://evil.example/bg)}</style>",
  "</pre></code></td></tr></table></section><base href=https://evil.example/>",
].join(" ");

const finding = (over: Partial<ReportedFinding>): ReportedFinding => ({
  check: "status.no-5xx",
  severity: "failure",
  level: "contract",
  message: `server error 500 ${HOSTILE}`,
  expected: `no 5xx status ${HOSTILE}`,
  received: `500 application/json: ${HOSTILE}`,
  rule: "spec/openapi.yaml#/paths/~1plants/post/responses",
  known: false,
  counts: true,
  ...over,
});

const summary: RunSummary = {
  startedAt: "2026-11-22T07:00:00.000Z",
  target: "http://127.0.0.1:4010/<b>base</b>",
  spec: "spec/openapi.yaml",
  seed: "42",
  total: 4,
  passed: 1,
  failed: 2,
  known: 1,
  errors: 0,
  failures: 1,
  warnings: 2,
  notes: 0,
  staleBaseline: [{ fixture: "auth-wrong-token", check: "auth.rejected" }],
  levels: [
    { level: "contract", verdict: "fail", failedCases: ["valid-basic"] },
    { level: "accepts-all-valid", verdict: "fail", failedCases: ["valid-name-empty"] },
  ],
  durationMs: 1234,
  runError: `the target misbehaved ${HOSTILE}`,
  coverage: {
    operations: {
      total: 2,
      exercised: 1,
      notExercised: [{ operation: "getPlant", method: "GET", path: "/plants/{id}", reason: "no fixture names it" }],
    },
    statuses: { total: 3, exercised: 2, notExercised: [{ operation: "createPlant", status: "400" }] },
    parameters: { total: 1, exercised: 0, notExercised: [{ operation: "getPlant", in: "path", name: "id" }] },
  },
  minCoverage: 100,
  coverageShortfall: "1 of 2 operations (50%) got an answer, below --min-coverage 100",
  exitCode: 1,
};

const step = (findings: ReportedFinding[]): CaseResult["steps"][number] => ({
  index: 0,
  operation: "createPlant",
  request: {
    method: "POST",
    url: "http://127.0.0.1:4010/plants?next=https://evil.example/",
    headers: { "content-type": "application/json", authorization: "Bearer [REDACTED]" },
    body: `{"name":"${HOSTILE.replace(/"/g, '\\"')}"}`,
  },
  response: { status: 500, headers: { "x-evil": HOSTILE, "content-type": "application/json" }, body: HOSTILE },
  transportFailure: undefined,
  durationMs: 3,
  findings,
  curl: `curl -sS -i -X POST 'http://127.0.0.1:4010/plants' --data-binary '${HOSTILE}'`,
});

const results: CaseResult[] = [
  {
    fixture: "valid-basic",
    description: `A plain valid plant ${HOSTILE}`,
    file: "fixtures/valid-basic.json",
    operation: "createPlant",
    outcome: "fail",
    steps: [step([finding({})])],
    error: undefined,
    durationMs: 3,
  },
  {
    fixture: "valid-name-empty",
    description: "An empty name",
    file: "fixtures/valid-name-empty.json",
    operation: "createPlant",
    outcome: "fail",
    steps: [
      step([
        finding({
          check: "valid.accepted",
          level: "accepts-all-valid",
          severity: "warning",
          message: "a valid request got 400",
          rule: "spec/openapi.yaml#/paths/~1plants/post/responses/200",
        }),
      ]),
    ],
    error: undefined,
    durationMs: 4,
  },
  {
    fixture: "invalid-content-type-text",
    description: "",
    file: "fixtures/invalid-content-type-text.json",
    operation: "createPlant",
    outcome: "pass",
    steps: [
      step([
        finding({
          check: "invalid.rejected",
          level: "rejects-all-invalid",
          severity: "warning",
          counts: false,
          message: "accepted a JSON body sent as text/plain",
        }),
      ]),
    ],
    error: undefined,
    durationMs: 5,
  },
  {
    fixture: "auth-missing",
    description: "",
    file: "fixtures/auth-missing.json",
    operation: "createPlant",
    outcome: "known",
    steps: [step([finding({ check: "auth.rejected", known: true, counts: false, message: "no auth got 200" })])],
    error: undefined,
    durationMs: 6,
  },
];

interface Tag {
  readonly name: string;
  readonly attributes: ReadonlyMap<string, string>;
}

/**
 * The page's markup, read the way a browser tokenises it for the parts this report can contain: every
 * tag with its attributes, and the text between them (the <style> element's body left out).
 */
function parse(html: string): { tags: Tag[]; text: string } {
  const tags: Tag[] = [];
  const body = html.replace(/<style>[^<]*<\/style>/, "<style></style>").replace(/^<!doctype html>/, "");
  const text = body.replace(/<(\/?)([a-z][a-z0-9]*)((?:\s+[a-z-]+(?:="[^"]*")?)*)\s*>/g, (_m, _close, name, attrs) => {
    const attributes = new Map<string, string>();
    for (const a of (attrs as string).matchAll(/([a-z-]+)(?:="([^"]*)")?/g)) attributes.set(a[1]!, a[2] ?? "");
    tags.push({ name, attributes });
    // Inline elements run on with the text around them; others end a word.
    return ["code", "a", "span", "strong"].includes(name) ? "" : " ";
  });
  return { tags, text };
}

const decode = (s: string): string =>
  s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");

describe("the HTML report", () => {
  const html = htmlReport(summary, results);
  const { tags, text } = parse(html);

  it("is markup of a few known elements and attributes only: no script, no load, no link out", () => {
    // Whatever is left once the tags are taken out is text: no stray markup character survived.
    expect(text).not.toMatch(/[<>]/);
    const names = new Set(tags.map((t) => t.name));
    const allowed =
      "html head meta title style body header footer section article div h1 h2 h3 h4 p strong span code pre a dl dt dd table thead tbody tr th td details summary ul li";
    expect([...names].filter((n) => !allowed.split(" ").includes(n))).toEqual([]);
    const attributes = new Set(tags.flatMap((t) => [...t.attributes.keys()]));
    expect([...attributes].sort()).toEqual([
      "charset",
      "class",
      "content",
      "href",
      "http-equiv",
      "id",
      "lang",
      "name",
      "open",
    ]);
    // Links only within the page, each to an element that is there.
    const ids = new Set(tags.map((t) => t.attributes.get("id")).filter((id) => id !== undefined));
    const hrefs = tags.map((t) => t.attributes.get("href")).filter((h): h is string => h !== undefined);
    expect(hrefs.length).toBeGreaterThan(0);
    for (const href of hrefs) {
      expect(href).toMatch(/^#case-\d+$/);
      expect(ids.has(href.slice(1)), href).toBe(true);
    }
    for (const t of tags)
      for (const value of t.attributes.values()) expect(value).not.toMatch(/https?:|javascript:|\/\//i);
    expect(html).not.toMatch(/<(script|img|link|iframe|object|embed|base|form|svg|math)\b/i);
    // The style loads nothing either.
    const style = /<style>([^<]*)<\/style>/.exec(html)![1]!;
    expect(style.length).toBeGreaterThan(1000);
    expect(style).not.toMatch(/url\(|@import|@font-face|https?:/i);
  });

  it("allows itself inline styles and nothing else, in a Content-Security-Policy meta", () => {
    const csp = tags.find((t) => t.attributes.get("http-equiv") === "Content-Security-Policy");
    expect(csp?.attributes.get("content")).toBe(HTML_REPORT_CSP);
    expect(HTML_REPORT_CSP).toMatch(/^default-src 'none'; style-src 'unsafe-inline'; img-src data:/);
    // The CSP comes before anything it governs.
    expect(html.indexOf("Content-Security-Policy")).toBeLessThan(html.indexOf("<style>"));
  });

  it("shows text from the target as text, every piece of it", () => {
    const shown = decode(text);
    // The hostile text, whole, in the failure's message, the evidence, the curl and the run error.
    expect(shown.split(HOSTILE).length - 1).toBeGreaterThanOrEqual(8);
    expect(shown).toContain(`Could not judge the target: the target misbehaved ${HOSTILE}`);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("&quot;&gt;&lt;img src=x onerror=alert(2)&gt;");
    expect(html).toContain("&apos; onmouseover=&apos;alert(3)");
    expect(shown).toContain("http://127.0.0.1:4010/<b>base</b>");
  });

  it("writes out control and bidi characters, so they cannot forge lines or reorder text", () => {
    expect(esc("a\nb\u001b[31mc\u202eevil")).toBe("a\\nb\\u001b[31mc\\u202eevil");
    const withControls = htmlReport(summary, [
      {
        ...results[0]!,
        steps: [
          { ...step([finding({ message: "x\u0000y\u2066z" })]), response: { status: 500, body: "l1\nl2\r\n\u0007" } },
        ],
      },
    ]);
    expect(withControls).toContain("x\\u0000y\\u2066z");
    expect(withControls).toContain("<pre>l1\nl2\n\\u0007</pre>");
  });

  it("shows the verdict, each level run with its rule, the run, counts and coverage", () => {
    const shown = decode(text).replace(/\s+/g, " ");
    expect(html).toContain("<title>Contract conformance: FAIL (exit 1)</title>");
    expect(shown).toContain("Contract conformance: FAIL (exit 1)");
    expect(shown).toContain("The target breaks the contract, 1 of 2 operations not exercised.");
    expect(shown).toContain(
      "contract FAIL 1: valid-basic what the contract states: documented answers valid by their schemas, invalid requests refused",
    );
    expect(shown).toContain(
      "accepts-all-valid FAIL 1: valid-name-empty every value the schema allows is accepted where the contract shows no further constraint",
    );
    expect(shown).toContain("Not run: rejects-all-invalid, http-rfc, documented-statuses");
    expect(shown).toContain(
      "target http://127.0.0.1:4010/<b>base</b> spec spec/openapi.yaml seed 42 (replay with --seed 42)",
    );
    expect(shown).toContain("started 2026-11-22T07:00:00.000Z duration 1.2 s exit code 1");
    expect(shown).toContain("4 1 2 1 0 1 2 0");
    expect(shown).toContain("operations 1 (50%) 2 documented statuses 2 (66%) 3 parameters 0 (0%) 1");
    expect(shown).toContain("coverage too low 1 of 2 operations (50%) got an answer, below --min-coverage 100");
    expect(shown).toContain("GET /plants/{id} (getPlant): no fixture names it");
    expect(shown).toContain("createPlant 400");
    expect(shown).toContain("getPlant path id");
  });

  it("tables per operation and per check, every failing case with its findings, evidence and curl", () => {
    const shown = decode(text).replace(/\s+/g, " ");
    expect(shown).toContain("Per operation operation cases passed failed known errors createPlant 4 1 2 1 0");
    expect(shown).toContain("status.no-5xx contract 1 0 0 0 1");
    expect(shown).toContain("valid.accepted accepts-all-valid 1 0 0 0 1");
    expect(shown).toContain("invalid.rejected rejects-all-invalid 0 1 0 0 1");
    expect(shown).toContain("auth.rejected contract 0 0 1 0 1");
    const failing = shown.slice(shown.indexOf("Failing cases"), shown.indexOf("Beyond the levels run"));
    expect(failing).toContain("FAIL valid-basic A plain valid plant");
    expect(failing).toContain(
      "operation createPlant file fixtures/valid-basic.json levels contract FAIL accepts-all-valid PASS",
    );
    expect(failing).toContain(`failure status.no-5xx: server error 500 ${HOSTILE}`);
    // The headline, cause first (checks.ts causeFirst), above the evidence.
    expect(failing).toContain(
      `Cause: status.no-5xx server error 500 ${HOSTILE} (spec/openapi.yaml#/paths/~1plants/post/responses) operation`,
    );
    expect(failing).toContain(
      `level contract expected no 5xx status ${HOSTILE} received 500 application/json: ${HOSTILE}`,
    );
    expect(failing).toContain("rule spec/openapi.yaml#/paths/~1plants/post/responses");
    expect(failing).toContain(
      "POST http://127.0.0.1:4010/plants?next=https://evil.example/ content-type: application/json",
    );
    expect(failing).toContain(`Response 500 x-evil: ${HOSTILE}`);
    expect(failing).toContain(
      `Reproduce curl -sS -i -X POST 'http://127.0.0.1:4010/plants' --data-binary '${HOSTILE}'`,
    );
    expect(failing).toContain("FAIL valid-name-empty");
    expect(failing).toContain("failure valid.accepted: a valid request got 400");
    // A passing case and a known one are no failing case.
    expect(failing).not.toContain("invalid-content-type-text");
    expect(failing).not.toContain("auth-missing");
  });

  it("lists warnings of levels not run, the known deviations and the stale baseline entries", () => {
    const shown = decode(text).replace(/\s+/g, " ");
    expect(shown).toContain(
      "invalid-content-type-text invalid.rejected rejects-all-invalid accepted a JSON body sent as text/plain",
    );
    expect(shown).toContain(
      "Known deviations (baseline) case check level severity message auth-missing auth.rejected contract failure no auth got 200",
    );
    expect(shown).toContain("Stale baseline entries");
    expect(shown).toContain("auth-wrong-token auth.rejected");
  });

  it("says so when nothing failed", () => {
    const pass: RunSummary = {
      ...summary,
      levels: [{ level: "contract", verdict: "pass", failedCases: [] }],
      runError: undefined,
      coverageShortfall: undefined,
      staleBaseline: [],
      exitCode: 0,
    };
    const ok = decode(parse(htmlReport(pass, [])).text).replace(/\s+/g, " ");
    expect(ok).toContain("Contract conformance: PASS (exit 0)");
    expect(ok).toContain("Failing cases None.");
    expect(ok).toContain("None: no finding of this run is listed in a baseline.");
  });

  it("says why a run could not start, under the same CSP", () => {
    const page = htmlErrorReport({ code: "PS_USAGE", message: "--timeout <bad> https://x.example" });
    const { tags: errorTags, text: errorText } = parse(page);
    expect(errorText).not.toMatch(/[<>]/);
    expect(errorTags.find((t) => t.name === "meta" && t.attributes.has("http-equiv"))?.attributes.get("content")).toBe(
      HTML_REPORT_CSP,
    );
    expect(decode(errorText).replace(/\s+/g, " ")).toContain(
      "Contract conformance: ERROR: could not run (exit 2) PS_USAGE: --timeout <bad> https://x.example",
    );
    expect(errorTags.some((t) => t.attributes.has("href") || t.attributes.has("src"))).toBe(false);
  });

  it("is written by --report html=FILE as the reporter makes it, from evidence masked where it was made", () => {
    const dir = tempDir("plantstore-html-");
    const secret = `tok'<&"en-51`;
    const redact = createRedactor([secret]);
    // The harness masks evidence where it is made (case-runner, checks); the file is written as it is.
    const masked: CaseResult = {
      ...results[0]!,
      steps: [
        {
          ...step([finding({ received: redact(`echoed ${secret}`) })]),
          response: { status: 500, body: redact(secret) },
        },
      ],
    };
    const file = join(dir, "report.html");
    writeReports([{ format: "html", file }], summary, [masked]);
    const written = readFileSync(file, "utf8");
    expect(written).toBe(htmlReport(summary, [masked]));
    expect(written).toContain("echoed [REDACTED]");
    expect(written).not.toContain(esc(secret));
    expect(decode(written)).not.toContain(secret);
    const failed = join(dir, "error.html");
    writeErrorReports([{ format: "html", file: failed }], new KitError("PS_USAGE", "bad --timeout"));
    expect(readFileSync(failed, "utf8")).toMatch(/<code>PS_USAGE<\/code>: .*: bad --timeout<\/p>/);
  });
});

import { shortPath } from "../../paths.js";
import { coverageLine } from "../coverage.js";
import { LEVEL_SUMMARIES, LEVELS, type Level } from "../levels.js";
import {
  caseLevelOutcome,
  caseLevelOutcomes,
  COULD_NOT_JUDGE,
  COULD_NOT_RUN,
  EXIT_VERDICT,
  levelVerdictWord,
  OUTCOME_WORDS,
  verdictHeading,
  type Outcome,
} from "../outcome.js";
import type { CaseResult, ReportedFinding, RunSummary, StepResult } from "../results.js";
import { runErrorText, summaryLines, visible } from "./console.js";
import { heldApart, heldLines } from "./held.js";
import { causeFirst } from "../checks.js";

// The HTML report: one self-contained page a person reads in a browser, offline. It has no script, no
// stylesheet, font or image of its own to load and no link out: its only attributes are class, id,
// `#fragment` links, `open` and the head's meta. A Content-Security-Policy meta forbids every load
// anyway. All text from the run (which holds text from the target) is escaped, so it stays text.

/**
 * What the page allows itself: inline styles and nothing else. No script runs, nothing is fetched,
 * no form is sent and no <base> redirects the `#fragment` links.
 */
export const HTML_REPORT_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/** Markup characters as entities; the same entities the redactor masks in XML-escaped text. */
const entities = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!);
/** Characters that reorder the text around them (bidi overrides): written out, so they cannot disguise it. */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const codePoint = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** Text on one line: control characters written out as \n, \u001b and the like, then escaped. */
export const esc = (s: string): string => entities(visible(s).replace(BIDI, codePoint));

/** Text in a <pre>: line breaks and tabs kept, other control characters written out, then escaped. */
const block = (s: string): string =>
  entities(
    s
      .replace(/\r\n/g, "\n")
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => (c === "\r" ? "\\r" : codePoint(c)))
      .replace(BIDI, codePoint),
  );

const badge = (cls: string, text: string): string => `<span class="badge ${cls}">${esc(text)}</span>`;
const code = (s: string): string => `<code>${esc(s)}</code>`;
const pre = (s: string, cls = ""): string => `<pre${cls === "" ? "" : ` class="${cls}"`}>${block(s)}</pre>`;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const percent = (part: number, whole: number): string => (whole === 0 ? "" : ` (${Math.floor((part / whole) * 100)}%)`);
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

/** A table: header cells as text, body cells as markup (the caller escapes). */
function table(head: readonly string[], rows: readonly (readonly string[])[], cls = ""): string {
  const th = head.map((h) => `<th>${esc(h)}</th>`).join("");
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join("")}</tr>`).join("\n");
  return `<div class="scroll"><table${cls === "" ? "" : ` class="${cls}"`}><thead><tr>${th}</tr></thead>\n<tbody>\n${body}\n</tbody></table></div>`;
}

/** How a finding counts, as the console says it: failure, warning (a level not run), known, note. */
function severityOf(f: ReportedFinding): { cls: string; text: string } {
  if (f.known) return { cls: "known", text: `known ${f.severity}` };
  if (f.severity === "note") return { cls: "note", text: "note" };
  return f.counts ? { cls: "fail", text: "failure" } : { cls: "warn", text: "warning" };
}

const STYLE = `
:root { color-scheme: light; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --soft: #f6f8fa;
  --pass: #1a7f37; --pass-bg: #dafbe1; --fail: #b42318; --fail-bg: #ffebe9; --warn: #8a5a00; --warn-bg: #fff8c5;
  --known: #6639ba; --known-bg: #fbefff; --note: #59636e; --note-bg: #eff2f5; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1200px; padding: 24px 32px 48px; color: var(--fg); background: #fff;
  font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 32px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 16px; margin: 0 0 6px; }
h4 { font-size: 14px; margin: 14px 0 6px; }
p { margin: 6px 0; }
code, pre { font: 12.5px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; }
pre { margin: 4px 0 8px; padding: 8px 10px; background: var(--soft); border: 1px solid var(--line); border-radius: 6px;
  white-space: pre-wrap; overflow-wrap: anywhere; max-height: 420px; overflow: auto; }
a { color: #0969da; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 6px 0 10px; }
th, td { border: 1px solid var(--line); padding: 4px 10px; text-align: left; vertical-align: top; overflow-wrap: break-word; }
thead th { background: var(--soft); font-weight: 600; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.muted { color: var(--muted); }
table.levels td:first-child, table.checks td:nth-child(2), table.known td:nth-child(3),
  table.levels td:nth-child(3) code { white-space: nowrap; }
table.cases td { padding: 2px 10px; }
.banner { padding: 16px 20px; border-radius: 8px; border: 1px solid; margin-bottom: 18px; }
.banner.pass { background: var(--pass-bg); border-color: var(--pass); }
.banner.fail { background: var(--fail-bg); border-color: var(--fail); }
.banner.error { background: var(--warn-bg); border-color: var(--warn); }
.banner p { margin: 2px 0; }
.badge { display: inline-block; padding: 0 7px; border-radius: 10px; font-size: 12px; font-weight: 600;
  border: 1px solid; white-space: nowrap; }
.badge.pass { color: var(--pass); background: var(--pass-bg); }
.badge.fail, .badge.error { color: var(--fail); background: var(--fail-bg); }
.badge.warn { color: var(--warn); background: var(--warn-bg); }
.badge.known { color: var(--known); background: var(--known-bg); }
.badge.note { color: var(--note); background: var(--note-bg); }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 6px 0; }
dl.meta dt { color: var(--muted); }
dl.meta dd { margin: 0; overflow-wrap: anywhere; }
.case { border: 1px solid var(--line); border-left: 4px solid var(--fail); border-radius: 6px; padding: 12px 16px;
  margin: 12px 0; }
.case.error { border-left-color: var(--warn); }
.finding { margin: 8px 0; padding: 8px 10px; background: #fff; border: 1px solid var(--line); border-radius: 6px; }
.finding table { margin: 6px 0 0; width: 100%; }
.finding th { width: 90px; background: var(--soft); font-weight: 600; }
details { margin: 6px 0; }
summary { cursor: pointer; color: var(--muted); }
ul { margin: 4px 0 8px; padding-left: 22px; }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; }
@media print {
  body { padding: 0; font-size: 11px; max-width: none; }
  code, pre { font-size: 10px; }
  pre { max-height: none; overflow: visible; }
  a { color: inherit; text-decoration: none; }
  .finding, pre, tr { break-inside: avoid; }
  h2 { break-after: avoid; }
}`;

/** The page around a body: the CSP, the style, a title. */
function page(title: string, body: string): string {
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${HTML_REPORT_CSP}">`,
    '<meta name="referrer" content="no-referrer">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(title)}</title>`,
    `<style>${STYLE}\n</style>`,
    "</head>",
    "<body>",
    body,
    "<footer>plantstore-kit conformance report: one self-contained file, no script and no network access (its Content-Security-Policy forbids both).</footer>",
    "</body>",
    "</html>",
    "",
  ].join("\n");
}

/** The HTML report of a finished run: verdicts, coverage, tables per operation and check, every failure with its evidence. */
export function htmlReport(summary: RunSummary, results: readonly CaseResult[]): string {
  const s = summary;
  const levels = s.levels.map((l) => l.level);
  // Fragment ids by position: fixture ids are the kit's, but generated and saved ones need not be tidy.
  const held = heldApart(results.filter((r) => r.outcome === "fail" || r.outcome === "error"));
  const bad = held.each;
  const anchor = new Map(bad.map((r) => [r, `case-${results.indexOf(r) + 1}`]));
  const anchorOf = new Map(bad.map((r) => [r.fixture, anchor.get(r)!]));
  /** A case's id, linked to its failure below when it has one. */
  const caseLink = (fixture: string): string => {
    const id = anchorOf.get(fixture);
    return id === undefined ? code(fixture) : `<a href="#${id}">${code(fixture)}</a>`;
  };
  const title = `Contract conformance: ${verdictHeading(EXIT_VERDICT[s.exitCode])} (exit ${s.exitCode})`;
  const out: string[] = [
    verdictBanner(s, title),
    runSection(s),
    levelsSection(s, levels, caseLink),
    countsSection(s),
    coverageSection(s),
    operationsSection(results),
    checksSection(results),
    '<section id="failing"><h2>Failing cases</h2>',
  ];
  if (bad.length === 0 && heldLines(held).length === 0) out.push('<p class="muted">None.</p>');
  for (const r of bad) out.push(caseArticle(r, anchor.get(r)!, levels));
  for (const line of heldLines(held)) out.push(`<p>${esc(line)}</p>`);
  out.push("</section>");
  out.push(sequencesSection(results, anchor));
  out.push(warningsSection(results, levels));
  out.push(knownSection(s, results, caseLink));
  out.push(casesSection(results, levels, caseLink));
  return page(title, out.join("\n"));
}

/** The verdict at the top, and why the target could not be judged when it could not. */
function verdictBanner(s: RunSummary, title: string): string {
  // The console's verdict sentence, without what the title says already: "the target breaks the contract".
  const verdictLine = (summaryLines(s).at(-1) ?? "").replace(/^verdict: [A-Z]+,? ?| ?\(exit \d\)$/g, "");
  const out = [
    `<header class="banner ${EXIT_VERDICT[s.exitCode]}" id="verdict">`,
    `<h1>${esc(title)}</h1>`,
    verdictLine === "" ? "" : `<p><strong>${esc(verdictLine[0]!.toUpperCase() + verdictLine.slice(1))}.</strong></p>`,
    `<p class="muted">${esc(`${s.total} cases: ${s.passed} passed, ${s.failed} failed, ${s.known} known deviations, ${s.errors} errors`)}</p>`,
    "</header>",
  ];
  if (s.runError !== undefined)
    out.push(
      `<div class="banner error" id="run-error"><p><strong>Could not judge the target:</strong> ${esc(runErrorText(s))}</p></div>`,
    );
  return out.join("\n");
}

function runSection(s: RunSummary): string {
  return [
    '<section id="run"><h2>Run</h2><dl class="meta">',
    `<dt>target</dt><dd>${code(s.target)}</dd>`,
    `<dt>spec</dt><dd>${code(shortPath(s.spec))}</dd>`,
    `<dt>seed</dt><dd>${code(s.seed)} <span class="muted">(replay with --seed ${esc(s.seed)})</span></dd>`,
    `<dt>started</dt><dd>${esc(s.startedAt)}</dd>`,
    `<dt>duration</dt><dd>${esc(seconds(s.durationMs))}</dd>`,
    `<dt>exit code</dt><dd>${s.exitCode}</dd>`,
    "</dl></section>",
  ].join("\n");
}

function levelsSection(s: RunSummary, levels: readonly Level[], caseLink: (fixture: string) => string): string {
  const notRun = LEVELS.filter((l) => !levels.includes(l));
  return [
    '<section id="levels"><h2>Verdict per level</h2>',
    table(
      ["level", "verdict", "failing cases", "what it judges"],
      s.levels.map((l) => [
        code(l.level),
        badge(l.verdict, levelVerdictWord(l.verdict)),
        l.failedCases.length === 0
          ? '<span class="muted">none</span>'
          : `${l.failedCases.length}: ${l.failedCases.map(caseLink).join(", ")}`,
        esc(LEVEL_SUMMARIES[l.level]),
      ]),
      "levels",
    ),
    notRun.length === 0
      ? ""
      : `<p class="muted">Not run: ${notRun.map(esc).join(", ")}; their findings are warnings here, not counted (--level NAME or --strict runs them).</p>`,
    "</section>",
  ].join("\n");
}

function countsSection(s: RunSummary): string {
  return [
    '<section id="counts"><h2>Counts</h2>',
    table(
      ["cases", "passed", "failed", "known deviations", "errors", "failures", "beyond the contract", "notes"],
      [[s.total, s.passed, s.failed, s.known, s.errors, s.failures, s.warnings, s.notes].map(String)],
      "counts",
    ),
    "</section>",
  ].join("\n");
}

function casesSection(
  results: readonly CaseResult[],
  levels: readonly Level[],
  caseLink: (fixture: string) => string,
): string {
  return [
    '<section id="cases"><h2>All cases</h2>',
    `<details${results.length <= 60 ? " open" : ""}><summary>${esc(plural(results.length, "case"))}, in run order</summary>`,
    table(
      ["case", "operation", "outcome", ...levels, "time"],
      results.map((r) => {
        const byLevel = caseLevelOutcomes(r, levels);
        return [
          caseLink(r.fixture),
          code(r.operation),
          badge(r.outcome, OUTCOME_WORDS[r.outcome]),
          ...levels.map((l) => badge(byLevel[l]!, OUTCOME_WORDS[byLevel[l]!])),
          `${r.durationMs.toFixed(0)} ms`,
        ];
      }),
      "cases",
    ),
    "</details></section>",
  ].join("\n");
}

function coverageSection(s: RunSummary): string {
  const c = s.coverage;
  const rows = [
    ["operations", c.operations.exercised, c.operations.total],
    ["documented statuses", c.statuses.exercised, c.statuses.total],
    ["parameters", c.parameters.exercised, c.parameters.total],
  ] as const;
  const lists: string[] = [];
  const list = (title: string, items: readonly string[]): void => {
    if (items.length === 0) return;
    lists.push(
      `<details${items.length <= 20 ? " open" : ""}><summary>${esc(title)} (${items.length})</summary><ul>`,
      ...items.map((i) => `<li>${i}</li>`),
      "</ul></details>",
    );
  };
  list(
    "Operations not exercised",
    c.operations.notExercised.map((n) => `${code(`${n.method} ${n.path}`)} (${code(n.operation)}): ${esc(n.reason)}`),
  );
  list(
    "Documented statuses not seen",
    c.statuses.notExercised.map((n) => `${code(n.operation)} ${code(n.status)}`),
  );
  list(
    "Parameters not exercised",
    c.parameters.notExercised.map((n) => `${code(n.operation)} ${esc(n.in)} ${code(n.name)}`),
  );
  return [
    '<section id="coverage"><h2>Coverage</h2>',
    `<p>${esc(coverageLine(c).replace(/^coverage/, "Exercised"))}.</p>`,
    table(
      ["", "exercised", "of"],
      rows.map(([what, done, total]) => [esc(what), `${done}${esc(percent(done, total))}`, String(total)]),
      "coverage",
    ),
    s.minCoverage === undefined ? "" : `<p>Minimum asked (--min-coverage): ${s.minCoverage}% of the operations.</p>`,
    s.coverageShortfall === undefined ? "" : `<p>${badge("fail", "coverage too low")} ${esc(s.coverageShortfall)}</p>`,
    ...lists,
    "</section>",
  ].join("\n");
}

function operationsSection(results: readonly CaseResult[]): string {
  const byOp = new Map<string, Record<Outcome | "cases", number>>();
  for (const r of results) {
    const row = byOp.get(r.operation) ?? { cases: 0, pass: 0, fail: 0, known: 0, error: 0 };
    row.cases++;
    row[r.outcome]++;
    byOp.set(r.operation, row);
  }
  return [
    '<section id="operations"><h2>Per operation</h2>',
    byOp.size === 0
      ? '<p class="muted">No case ran.</p>'
      : table(
          ["operation", "cases", "passed", "failed", "known", "errors"],
          [...byOp].map(([op, n]) => [code(op), ...[n.cases, n.pass, n.fail, n.known, n.error].map(String)]),
          "operations",
        ),
    "</section>",
  ].join("\n");
}

function checksSection(results: readonly CaseResult[]): string {
  interface Row {
    check: string;
    level: Level;
    counted: number;
    warnings: number;
    known: number;
    notes: number;
    cases: Set<string>;
  }
  const rows = new Map<string, Row>();
  for (const r of results)
    for (const f of r.steps.flatMap((st) => st.findings)) {
      const key = `${f.check} ${f.level}`;
      const row = rows.get(key) ?? {
        check: f.check,
        level: f.level,
        counted: 0,
        warnings: 0,
        known: 0,
        notes: 0,
        cases: new Set<string>(),
      };
      if (f.known) row.known++;
      else if (f.counts) row.counted++;
      else if (f.severity === "note") row.notes++;
      else row.warnings++;
      row.cases.add(r.fixture);
      rows.set(key, row);
    }
  const sorted = [...rows.values()].sort(
    (a, b) => b.counted - a.counted || b.warnings - a.warnings || a.check.localeCompare(b.check),
  );
  return [
    '<section id="checks"><h2>Per check</h2>',
    sorted.length === 0
      ? '<p class="muted">No findings.</p>'
      : table(
          ["check", "level", "failures (counted)", "warnings (level not run)", "known", "notes", "cases"],
          sorted.map((r) => [
            code(r.check),
            code(r.level),
            ...[r.counted, r.warnings, r.known, r.notes, r.cases.size].map(String),
          ]),
          "checks",
        ),
    "</section>",
  ].join("\n");
}

/**
 * The stateful sequences: each case's verdict at the level `stateful` (counted or not) and its steps;
 * one with a stateful finding the run does not count is shown whole here (a counted one is above).
 */
function sequencesSection(results: readonly CaseResult[], anchor: ReadonlyMap<CaseResult, string>): string {
  const cases = results.filter((r) => r.sequence !== undefined);
  if (cases.length === 0) return "";
  const out = [
    '<section id="sequences"><h2>Stateful sequences</h2>',
    table(
      ["case", "stateful", "steps"],
      cases.map((r) => {
        const outcome = caseLevelOutcome(r, "stateful");
        const id = anchor.get(r) ?? `sequence-${results.indexOf(r) + 1}`;
        return [
          `<a href="#${id}">${code(r.fixture)}</a>`,
          badge(outcome, OUTCOME_WORDS[outcome]),
          esc(r.sequence!.steps.join(" → ")),
        ];
      }),
      "sequences",
    ),
  ];
  for (const r of cases)
    if (!anchor.has(r) && caseLevelOutcome(r, "stateful") === "fail")
      out.push(caseArticle(r, `sequence-${results.indexOf(r) + 1}`, ["stateful"]));
  out.push("</section>");
  return out.join("\n");
}

/** One failing or unjudged case: its findings, the evidence of each step, the command that replays it. */
function caseArticle(r: CaseResult, id: string, levels: readonly Level[]): string {
  const byLevel = caseLevelOutcomes(r, levels);
  const out = [
    `<article class="case ${r.outcome}" id="${id}">`,
    `<h3>${badge(r.outcome, OUTCOME_WORDS[r.outcome])} ${code(r.fixture)}</h3>`,
    r.description === "" ? "" : `<p>${esc(r.description)}</p>`,
    causeLine(r),
    '<dl class="meta">',
    `<dt>operation</dt><dd>${code(r.operation)}</dd>`,
    `<dt>file</dt><dd>${code(shortPath(r.file))}</dd>`,
    `<dt>levels</dt><dd>${levels.map((l) => `${code(l)} ${badge(byLevel[l]!, OUTCOME_WORDS[byLevel[l]!])}`).join(" ")}</dd>`,
    `<dt>time</dt><dd>${r.durationMs.toFixed(0)} ms</dd>`,
    "</dl>",
  ];
  if (r.error !== undefined) out.push(`<p>${badge("error", COULD_NOT_JUDGE)} ${esc(r.error)}</p>`);
  if (r.generated !== undefined) {
    const g = r.generated;
    out.push(
      `<h4>Generated ${esc(g.polarity)} case: the smallest failing request</h4>`,
      g.reason === undefined ? "" : `<p>Rule it breaks on purpose: ${esc(g.reason)}</p>`,
      pre(g.body),
      g.parameters === undefined ? "" : pre(JSON.stringify(g.parameters, null, 2)),
    );
  }
  for (const step of r.steps) out.push(stepBlock(step, r.steps.length));
  if (r.sequence?.reproduction !== undefined)
    out.push(
      `<h4>The sequence: ${esc(r.sequence.steps.join(" → "))}</h4>`,
      ...r.sequence.notes.map((n) => `<p class="muted">Not judged: ${esc(n)}</p>`),
      "<p><strong>Reproduce the whole sequence</strong></p>",
      pre(r.sequence.reproduction, "curl"),
    );
  out.push("</article>");
  return out.join("\n");
}

/** A failing case's headline: its counted finding that says the most (checks.ts causeFirst), first. */
function causeLine(r: CaseResult): string {
  const first = causeFirst(r.steps.flatMap((s) => s.findings).filter((f) => f.counts))[0];
  return first === undefined
    ? ""
    : `<p class="cause"><strong>Cause:</strong> ${code(first.check)} ${esc(first.message)} <span class="muted">(${esc(first.rule)})</span></p>`;
}

function stepBlock(step: StepResult, steps: number): string {
  const status =
    step.response !== undefined
      ? String(step.response.status)
      : step.transportFailure !== undefined
        ? `no answer: ${step.transportFailure}`
        : "no answer";
  const out = [
    `<h4>${steps > 1 ? `Step ${step.index + 1}: ` : ""}${code(`${step.request.method} ${step.request.url}`)} → ${esc(status)} <span class="muted">(${step.durationMs.toFixed(0)} ms)</span></h4>`,
  ];
  for (const f of step.findings) {
    const sev = severityOf(f);
    out.push(
      '<div class="finding">',
      `<p>${badge(sev.cls, sev.text)} ${code(f.check)}: ${esc(f.message)}</p>`,
      "<table><tbody>",
      `<tr><th>level</th><td>${code(f.level)}</td></tr>`,
      `<tr><th>expected</th><td>${esc(f.expected)}</td></tr>`,
      `<tr><th>received</th><td>${esc(f.received)}</td></tr>`,
      `<tr><th>rule</th><td>${code(f.rule)}</td></tr>`,
      "</tbody></table>",
      "</div>",
    );
  }
  const req = step.request;
  const res = step.response;
  const headers = (h: Readonly<Record<string, string>> | undefined): string =>
    h === undefined
      ? ""
      : Object.entries(h)
          .map(([k, v]) => `${k}: ${v}`)
          .join("\n");
  const evidence: string[] = [];
  if (req.headers !== undefined || req.body !== undefined) {
    evidence.push(
      "<p><strong>Request</strong></p>",
      pre([`${req.method} ${req.url}`, headers(req.headers)].filter((x) => x !== "").join("\n")),
      req.body === undefined ? "" : pre(req.body),
    );
  }
  if (res !== undefined && (res.headers !== undefined || res.body !== undefined)) {
    evidence.push(
      "<p><strong>Response</strong></p>",
      pre([`${res.status}`, headers(res.headers)].filter((x) => x !== "").join("\n")),
      res.body === undefined ? "" : pre(res.body),
    );
  }
  if (evidence.length > 0)
    out.push(`<details open><summary>Evidence (step ${step.index + 1})</summary>`, ...evidence, "</details>");
  if (step.curl !== undefined) out.push("<p><strong>Reproduce</strong></p>", pre(step.curl, "curl"));
  return out.join("\n");
}

/** Findings of levels that did not run, in any case: not counted, but what `--level NAME` would count. */
function warningsSection(results: readonly CaseResult[], levels: readonly Level[]): string {
  const warnings = results.flatMap((r) =>
    r.steps.flatMap((st) =>
      st.findings
        .filter((f) => f.severity === "warning" && !f.counts && !f.known && !levels.includes(f.level))
        .map((f) => ({ fixture: r.fixture, f })),
    ),
  );
  if (warnings.length === 0) return "";
  return [
    '<section id="warnings"><h2>Beyond the levels run (not counted)</h2>',
    '<p class="muted">Rules of levels this run did not judge: each would count with --level NAME.</p>',
    table(
      ["case", "check", "level", "message", "rule"],
      warnings.map(({ fixture, f }) => [code(fixture), code(f.check), code(f.level), esc(f.message), code(f.rule)]),
      "known",
    ),
    "</section>",
  ].join("\n");
}

function knownSection(s: RunSummary, results: readonly CaseResult[], caseLink: (fixture: string) => string): string {
  const known = results.flatMap((r) =>
    r.steps.flatMap((st) => st.findings.filter((f) => f.known).map((f) => ({ fixture: r.fixture, f }))),
  );
  return [
    '<section id="known"><h2>Known deviations (baseline)</h2>',
    known.length === 0
      ? '<p class="muted">None: no finding of this run is listed in a baseline.</p>'
      : table(
          ["case", "check", "level", "severity", "message"],
          known.map(({ fixture, f }) => [
            caseLink(fixture),
            code(f.check),
            code(f.level),
            esc(f.severity),
            esc(f.message),
          ]),
          "known",
        ),
    s.staleBaseline.length === 0
      ? ""
      : [
          "<h3>Stale baseline entries</h3>",
          '<p class="muted">Listed in the baseline but did not occur: the deviation may be fixed; remove the entry.</p>',
          "<ul>",
          ...s.staleBaseline.map((e) => `<li>${code(e.fixture)} ${code(e.check)}</li>`),
          "</ul>",
        ].join("\n"),
    "</section>",
  ].join("\n");
}

/** The HTML report of a run that could not start: the error's code and message. */
export function htmlErrorReport(error: { readonly code: string; readonly message: string }): string {
  const title = `Contract conformance: ${OUTCOME_WORDS.error}: ${COULD_NOT_RUN} (exit 2)`;
  return page(
    title,
    [
      '<header class="banner error" id="verdict">',
      `<h1>${esc(title)}</h1>`,
      `<p>${code(error.code)}: ${esc(error.message)}</p>`,
      "</header>",
    ].join("\n"),
  );
}

// What the kit does with real public OpenAPI documents (test/corpus.ts): for each one, what a user
// would do first. Load it, then run generated cases against the real Prism mock of it.
//   npm run build && node dist/bench/corpus-survey.js [NAME ...] [--out FILE] [--timeout SECONDS]
// Each document runs in a child process of its own with a hang guard: a load or a run that never ends
// is killed and recorded as "hung" (Prism, a grandchild, exits when the child's stdin pipe closes).
// Writes one JSON file (--out) and prints a table. Not a test: nothing here asserts anything.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { loadContract, type Contract } from "../src/contract/index.js";
import { startPrism, type RunningPrism } from "../src/mock/prism.js";
import { loadBaseline, writeBaseline } from "../src/harness/baseline.js";
import type { CaseResult } from "../src/harness/results.js";
import { runConformance } from "../src/harness/run.js";
import { CORPUS, corpusDocuments, type CorpusDocument } from "../test/corpus.js";

/** What happened to one document. Fields after `load` are absent when the step before did not get there. */
export interface SurveyRow {
  readonly name: string;
  readonly openapi: string;
  readonly format: string;
  /** Operations under `paths`, as the corpus list counts them. */
  readonly documentOperations: number;
  /** ok: every step ended; hung: the hang guard killed it; crashed: the child died of something else. */
  readonly status: "ok" | "hung" | "crashed";
  /** The phase the child was in when it was killed or died. */
  readonly lastPhase: "load" | "prism" | "run" | "done";
  readonly wallMs: number;
  readonly load?: {
    readonly ok: boolean;
    readonly error?: string;
    readonly ms: number;
    readonly operations?: number;
    /** Resident and heap memory after the load, MiB. */
    readonly rssMiB: number;
    readonly heapUsedMiB: number;
  };
  readonly prism?: { readonly ok: boolean; readonly error?: string; readonly ms: number };
  readonly run?: {
    readonly ok: boolean;
    /** Why runConformance refused to run or threw. */
    readonly error?: string;
    readonly ms: number;
    readonly exitCode?: number;
    readonly runError?: string;
    readonly total?: number;
    readonly passed?: number;
    readonly failed?: number;
    readonly errors?: number;
    readonly operations?: { readonly total: number; readonly exercised: number };
    readonly notExercised?: readonly { readonly operation: string; readonly reason: string }[];
    readonly bad?: readonly BadCase[];
    /** Cases whose generated part --max-time cut short. */
    readonly maxTimeStopped?: readonly string[];
  };
  /** The child's last stderr lines, when it hung or crashed. */
  readonly stderrTail?: string;
}

interface BadCase {
  readonly fixture: string;
  readonly outcome: string;
  readonly checks: readonly string[];
  readonly message: string;
}

const MESSAGE_MAX = 300;
const clip = (s: string, max = MESSAGE_MAX): string => (s.length > max ? `${s.slice(0, max)}…` : s);
const mib = (bytes: number): number => Math.round((bytes / 2 ** 20) * 10) / 10;
const message = (e: unknown): string => clip(e instanceof Error ? e.message : String(e), 1_000);

// ---------- the child: one document ----------

type Partial = Omit<SurveyRow, "status" | "wallMs" | "stderrTail">;

async function surveyOne(doc: CorpusDocument, report: string): Promise<void> {
  const row: { -readonly [K in keyof Partial]: Partial[K] } = {
    name: doc.name,
    openapi: doc.openapi,
    format: doc.format,
    documentOperations: doc.operations,
    lastPhase: "load",
  };
  // Written after each phase, so a child killed later still tells how far it got.
  const save = (): void => writeFileSync(report, JSON.stringify(row));
  save();

  const { contract, load } = await loadPhase(doc);
  row.load = load;
  if (contract === undefined) {
    row.lastPhase = "done";
    return save();
  }

  row.lastPhase = "prism";
  save();
  const started = await prismPhase(doc);
  row.prism = started.prism;
  const prism = started.running;
  if (prism === undefined) {
    row.lastPhase = "done";
    return save();
  }

  row.lastPhase = "run";
  save();
  try {
    row.run = await runPhase(doc, prism, contract);
  } finally {
    await prism.stop();
  }
  row.lastPhase = "done";
  save();
}

/** Loads the document, timed, with the memory it took. */
async function loadPhase(doc: CorpusDocument): Promise<{ contract: Contract | undefined; load: SurveyRow["load"] }> {
  const t = performance.now();
  try {
    const contract = await loadContract(doc.file);
    const m = process.memoryUsage();
    return {
      contract,
      load: {
        ok: true,
        ms: Math.round(performance.now() - t),
        operations: contract.operations.length,
        rssMiB: mib(m.rss),
        heapUsedMiB: mib(m.heapUsed),
      },
    };
  } catch (e) {
    const m = process.memoryUsage();
    return {
      contract: undefined,
      load: {
        ok: false,
        error: message(e),
        ms: Math.round(performance.now() - t),
        rssMiB: mib(m.rss),
        heapUsedMiB: mib(m.heapUsed),
      },
    };
  }
}

/** Starts a Prism mock of the document, timed. */
async function prismPhase(
  doc: CorpusDocument,
): Promise<{ running: RunningPrism | undefined; prism: SurveyRow["prism"] }> {
  const t = performance.now();
  try {
    const ready = doc.slowPrism === undefined ? {} : { readyTimeoutMs: doc.slowPrism.readyTimeoutMs };
    const running = await startPrism({ port: 0, spec: doc.file, ...ready });
    return { running, prism: { ok: true, ms: Math.round(performance.now() - t) } };
  } catch (e) {
    return { running: undefined, prism: { ok: false, error: message(e), ms: Math.round(performance.now() - t) } };
  }
}

/** Runs generated cases against the mock, timed: counts, coverage, and the cases that failed or could not be judged. */
async function runPhase(doc: CorpusDocument, prism: RunningPrism, contract: Contract): Promise<SurveyRow["run"]> {
  const t = performance.now();
  try {
    const { summary, results } = await runConformance({
      target: prism.url,
      // Prism takes any credentials; one value serves bearer, apiKey and basic (USER:PASSWORD) schemes.
      token: "user:example-credential",
      spec: doc.file,
      // The contract just loaded: the run would load the same file again.
      contract,
      noFixtures: true,
      // A slow mock gets what a user would give it: a longer --timeout (test/corpus.ts says why).
      ...(doc.slowPrism === undefined ? {} : { timeoutMs: doc.slowPrism.requestTimeoutMs }),
      generate: { count: Number(values.count ?? "20") },
      seed: 5n,
      ...(values.baseline === undefined ? {} : { baseline: loadBaseline(values.baseline) }),
    });
    if (values["write-baselines"] !== undefined) writeSurveyBaseline(doc, results, values["write-baselines"]);
    return {
      ok: true,
      ms: Math.round(performance.now() - t),
      exitCode: summary.exitCode,
      runError: summary.runError,
      total: summary.total,
      passed: summary.passed,
      failed: summary.failed,
      errors: summary.errors,
      operations: { total: summary.coverage.operations.total, exercised: summary.coverage.operations.exercised },
      notExercised: summary.coverage.operations.notExercised.map((n) => ({
        operation: `${n.method} ${n.path}`,
        reason: n.reason,
      })),
      bad: badCases(results),
      maxTimeStopped: results
        .filter((r) => r.description.includes("--max-time") || (r.error ?? "").includes("--max-time"))
        .map((r) => r.fixture),
    };
  } catch (e) {
    return { ok: false, error: message(e), ms: Math.round(performance.now() - t) };
  }
}

/** The findings the baseline did not know, one entry per case and check, for a reader to judge. */
function writeSurveyBaseline(doc: CorpusDocument, results: readonly CaseResult[], dir: string): void {
  const deviations = results.flatMap((r) => {
    const byCheck = new Map<string, { fixture: string; check: string; reason: string }>();
    for (const f of r.steps.flatMap((st) => st.findings))
      if (f.counts) byCheck.set(f.check, { fixture: r.fixture, check: f.check, reason: f.message });
    return [...byCheck.values()];
  });
  mkdirSync(dir, { recursive: true });
  writeBaseline(join(dir, `${doc.name}.json`), {
    description: `${doc.name} against a Prism mock of itself: what --baseline ${values.baseline ?? "(none)"} does not know`,
    deviations,
  });
}

/** The cases that failed or could not be judged: their checks and first message. */
function badCases(results: readonly CaseResult[]): BadCase[] {
  return results
    .filter((r) => r.outcome === "fail" || r.outcome === "error")
    .map((r) => {
      const findings = r.steps.flatMap((s) => s.findings).filter((f) => f.severity === "failure");
      return {
        fixture: r.fixture,
        outcome: r.outcome,
        checks: [...new Set(findings.map((f) => f.check))],
        message: clip(
          r.error ?? findings[0]?.message ?? r.steps.find((s) => s.transportFailure)?.transportFailure ?? "",
        ),
      };
    });
}

// ---------- the parent: every document, one child each ----------

function runChild(doc: CorpusDocument, dir: string, timeoutMs: number): Promise<SurveyRow> {
  const report = join(dir, `${doc.name}.json`);
  const started = performance.now();
  const forwarded = (["baseline", "count", "write-baselines"] as const).flatMap((k) =>
    values[k] === undefined ? [] : [`--${k}`, values[k]],
  );
  const child = spawn(
    process.execPath,
    [fileURLToPath(import.meta.url), "--child", doc.name, "--report", report, ...forwarded],
    {
      stdio: ["pipe", "ignore", "pipe"],
    },
  );
  const tail: string[] = [];
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    tail.push(...chunk.split("\n").filter((l) => l.trim() !== ""));
    tail.splice(0, Math.max(0, tail.length - 15));
  });
  let hung = false;
  const guard = setTimeout(() => {
    hung = true;
    child.kill("SIGKILL");
  }, timeoutMs);
  return new Promise((resolve) => {
    child.once("exit", (code) => {
      clearTimeout(guard);
      let partial: Partial;
      try {
        partial = JSON.parse(readFileSync(report, "utf8")) as Partial;
      } catch {
        partial = {
          name: doc.name,
          openapi: doc.openapi,
          format: doc.format,
          documentOperations: doc.operations,
          lastPhase: "load",
        };
      }
      const status = hung ? "hung" : code === 0 && partial.lastPhase === "done" ? "ok" : "crashed";
      resolve({
        ...partial,
        status,
        wallMs: Math.round(performance.now() - started),
        ...(status === "ok" ? {} : { stderrTail: clip(tail.join("\n"), 2_000) }),
      });
    });
  });
}

function tableLine(r: SurveyRow): string {
  const load = r.load === undefined ? "-" : r.load.ok ? `ok ${r.load.ms}ms` : "FAIL";
  const prism = r.prism === undefined ? "-" : r.prism.ok ? "ok" : "FAIL";
  const run = r.run;
  const exit = run?.exitCode ?? (run?.ok === false ? "threw" : "-");
  const ops = run?.operations ? `${run.operations.exercised}/${run.operations.total}` : "-";
  const bad = run?.bad?.length ?? "-";
  const stopped = run?.maxTimeStopped?.length ?? "-";
  const cells = [r.name, r.openapi, r.status, load, prism, exit, ops, bad, stopped, `${(r.wallMs / 1000).toFixed(0)}s`];
  return `| ${cells.join(" | ")} |`;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    out: { type: "string" },
    timeout: { type: "string" },
    child: { type: "string" },
    report: { type: "string" },
    baseline: { type: "string" },
    count: { type: "string" },
    "write-baselines": { type: "string" },
    help: { type: "boolean", short: "h" },
  },
  strict: true,
});

if (values.child !== undefined) {
  await surveyOne(corpusDocuments([values.child])[0]!, values.report!);
  // Anything left open (sockets, timers) must not keep a finished child alive until the guard.
  process.exit(0);
} else if (values.help) {
  process.stdout.write(
    "Usage: node dist/bench/corpus-survey.js [NAME ...] [--out FILE] [--timeout SECONDS]\n" +
      `Names (default all): ${CORPUS.map((d) => d.name).join(", ")}\n`,
  );
} else {
  const docs = positionals.length > 0 ? corpusDocuments(positionals) : [...CORPUS];
  const timeoutMs = Number(values.timeout ?? "300") * 1000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new Error(`--timeout: not a number of seconds`);
  const out = values.out ?? join(tmpdir(), "corpus-survey.json");
  const dir = mkdtempSync(join(tmpdir(), "plantstore-corpus-survey-"));
  const rows: SurveyRow[] = [];
  try {
    const log = (line: string): void => void process.stdout.write(line + "\n");
    log(
      "| document | openapi | status | load | prism | exit | operations exercised | fail/error cases | max-time cut | wall |",
    );
    log("|---|---|---|---|---|---|---|---|---|---|");
    for (const doc of docs) {
      const row = await runChild(doc, dir, timeoutMs);
      rows.push(row);
      // Written after each document, so a long survey stopped halfway keeps what it found.
      writeFileSync(
        out,
        JSON.stringify({ when: new Date().toISOString(), node: process.version, timeoutMs, rows }, null, 1),
      );
      log(tableLine(row));
    }
    log(`Written to ${out}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

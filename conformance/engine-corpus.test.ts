import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadContract } from "../src/contract/index.js";
import { DEFAULT_SPEC, KIT_ROOT } from "../src/paths.js";
import { startProxy } from "../src/proxy/index.js";
import { startMockServer } from "../src/server/index.js";
import { corpusDocuments } from "../test/corpus.js";
import { judgeEngine } from "../test/engine-run.js";

// The mock engine (`serve --spec`) judged by the kit's own harness, on public documents nobody here
// wrote (test/data/corpus, licences in its README): over loopback, generated cases and the stateful
// sequences of every resource the model finds, every operation exercised and no finding at all, no baseline. A mock that fails its own judge is a bug in one of
// the two. These documents are 3.0 and 3.1, YAML and JSON, with nested resources (Airflow, Traccar),
// envelopes and cursor paging (Apideck), basic auth (Twilio, Traccar), API keys in the query
// (Mineskin), oneOf errors (Decentraland) and examples that break their schemas (Microcks); the
// slower ones run in bench/engine-survey.ts.
const DOCUMENTS = [
  "adyen-bin-lookup",
  "adyen-recurring",
  "apache-airflow",
  "apideck-crm",
  "canada-holidays",
  "color-pizza",
  "decentraland-catalyst",
  "microcks",
  "mineskin",
  "traccar",
  "twilio-messaging-v1",
  "xero-payroll-au",
];

/** The OpenAPI Initiative's example documents (test/data/oai-examples, their licence beside them). */
const OAI = join(KIT_ROOT, "test", "data", "oai-examples");
const oaiExamples = readdirSync(OAI, { recursive: true, encoding: "utf8" })
  .filter((f) => /\.(ya?ml|json)$/.test(f))
  .sort()
  .map((f) => ({ name: `OAI ${f}`, file: join(OAI, f) }));

const KIT_DOCUMENTS = [
  { name: "the Plant Store spec", file: DEFAULT_SPEC },
  {
    name: "the multi-operation Plant Store",
    file: join(KIT_ROOT, "test", "data", "multi-op", "plant-store-multi.yaml"),
  },
];

describe("the mock engine of the kit's documents and the OAI examples, judged by the harness", () => {
  it("has every OAI example: those with operations are judged below, the one without is webhooks only", async () => {
    const empty = [];
    for (const doc of oaiExamples) if ((await loadContract(doc.file)).operations.length === 0) empty.push(doc.name);
    expect(oaiExamples.length).toBeGreaterThanOrEqual(9);
    expect(empty).toEqual(["OAI v3.1/webhook-example.yaml"]);
  });
  it.each(
    [...KIT_DOCUMENTS, ...oaiExamples.filter((d) => !d.name.includes("webhook-example"))].map(
      (d) => [d.name, d] as const,
    ),
  )("%s: every operation exercised, no finding", (_name, doc) => judged(doc.file), 60_000);
});

/**
 * Serves a document with the engine over loopback and runs the harness's generated cases against it,
 * through the kit's proxy: neither judge may flag an answer of the mock, refusals included.
 */
async function judged(file: string): Promise<void> {
  const contract = await loadContract(file);
  const server = await startMockServer({ contract, host: "127.0.0.1", port: 0 });
  const proxy = await startProxy({ target: server.url, contract, port: 0 });
  let stopped = false;
  try {
    const { summary, results } = await judgeEngine(contract, proxy.url);
    const { summary: watched, exchanges } = await proxy.stop();
    stopped = true;
    const flagged = exchanges.filter((e) => e.findings.some((f) => f.side === "server" && f.severity === "failure"));
    expect(watched.serverViolations, JSON.stringify(flagged, null, 1).slice(0, 3000)).toBe(0);
    expect(watched.judged).toBeGreaterThan(0);
    const bad = results.filter((r) => r.outcome !== "pass");
    expect(summary.exitCode, JSON.stringify(bad, null, 1).slice(0, 3000)).toBe(0);
    expect(summary.coverage.operations.exercised).toBe(contract.operations.length);
    // The stateful phase (shown, not counted by default) finds nothing either: no false alarm.
    const stateful = results.flatMap((r) =>
      r.steps.flatMap((s) => s.findings.filter((f) => f.level === "stateful" && f.severity !== "note")),
    );
    expect(stateful, JSON.stringify(stateful, null, 1).slice(0, 3000)).toEqual([]);
    expect(summary.levels.find((l) => l.level === "stateful")?.verdict ?? "pass").toBe("pass");
  } finally {
    if (!stopped) await proxy.stop();
    await server.close();
  }
}

describe("the mock engine of public documents, judged by the harness", () => {
  it.each(corpusDocuments(DOCUMENTS).map((d) => [d.name, d] as const))(
    "%s: every operation exercised, no finding",
    (_name, doc) => judged(doc.file),
    120_000,
  );
});

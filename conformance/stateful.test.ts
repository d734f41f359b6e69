import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { runConformance } from "../src/harness/run.js";
import type { CaseResult } from "../src/harness/results.js";
import { DEV_TOKEN, startMockServer } from "../src/server/index.js";
import { TOKEN } from "../test/helpers.js";
import { multiOpContract } from "../test/multi-op-server.js";
import { runCli, spawnCli, stopSpawned, type Spawned } from "../test/process.js";
import { tempDir } from "../test/temp-dir.js";
import {
  SERVER_CHOICES,
  startStatefulServer,
  STATEFUL_SPEC,
  STATEFUL_FAULTS,
  statefulContract,
  type StatefulServerOptions,
} from "../test/stateful-server.js";

// The stateful phase against servers whose every answer is valid alone (test/stateful-server.ts): each
// broken promise of a store is caught by the check meant for it, and no choice the contract leaves
// open is flagged. The sequences run alone (--only generated-stateful-*), their level counted.
const contract = await statefulContract();
const multiOp = await multiOpContract();

async function run(options: StatefulServerOptions, levels: string[] = ["stateful"]) {
  const server = await startStatefulServer(options);
  try {
    return await runConformance({
      target: server.url,
      token: TOKEN,
      contract,
      noFixtures: true,
      generate: { count: 5 },
      only: ["generated-stateful-*"],
      seed: 7n,
      levels,
    });
  } finally {
    await server.close();
  }
}

/** The stateful findings of a run that are not notes. */
const statefulFindings = (results: readonly CaseResult[]) =>
  results
    .flatMap((r) => r.steps.flatMap((s) => s.findings))
    .filter((f) => f.level === "stateful" && f.severity !== "note");

/** The steps a whole sequence on the stateful document takes. */
const FULL = [
  "create A",
  "read A",
  "list by tag of A",
  "create B",
  "read A",
  "read B",
  "list with limit=1",
  "list all (limit=100)",
  "create A again (its id)",
  "read A",
  "patch A",
  "read A",
  "replace A",
  "read A",
  "list by tag of A",
  "list all (limit=100)",
  "replace C (never made)",
  "read C (never made)",
  "delete A",
  "read B",
  "read A",
  "list by tag of A",
  "list all (limit=100)",
  "create A again (its freed id)",
  "read A",
  "delete A",
  "delete B",
];

const tally = { caught: 0, choicesPassed: 0 };
afterAll(() => {
  console.log(
    `stateful catalogue: ${tally.caught} of ${STATEFUL_FAULTS.length} broken promises caught by the intended check; ` +
      `${tally.choicesPassed} of ${SERVER_CHOICES.length} servers making a legitimate choice pass with no stateful finding`,
  );
});

describe("the stateful phase against a catalogue of stores", () => {
  it("a correct server passes, every step of the whole sequence judged", async () => {
    const { summary, results } = await run({});
    expect(summary.exitCode, JSON.stringify(results, null, 1).slice(0, 3000)).toBe(0);
    expect(statefulFindings(results)).toEqual([]);
    const [only] = results;
    expect(results.map((r) => r.fixture)).toEqual([
      "generated-stateful-createPlant",
      "generated-stateful-links-createPlant",
    ]);
    expect(only?.sequence?.steps).toEqual(FULL);
    expect(only?.sequence?.notes).toEqual([]);
    expect(summary.levels).toEqual([
      { level: "contract", verdict: "pass", failedCases: [] },
      { level: "stateful", verdict: "pass", failedCases: [] },
    ]);
  });

  it.each(STATEFUL_FAULTS.map((f) => [f.fault, f.check, f.what] as const))(
    "%s is caught by %s (%s), as its shortest sequence with a reproduction",
    async (fault, check) => {
      const { summary, results } = await run({ fault });
      expect(summary.exitCode).toBe(1);
      const [only] = results;
      const counted = only!.steps.flatMap((s) => s.findings.filter((f) => f.counts));
      expect(counted.map((f) => f.check)).toContain(check);
      // Nothing but the stateful level fails: every answer was valid alone.
      expect(counted.every((f) => f.level === "stateful")).toBe(true);
      expect(summary.levels.find((l) => l.level === "contract")?.verdict).toBe("pass");
      // Shrunk: fewer steps than the whole sequence, each with its command in the reproduction.
      const sequence = only!.sequence!;
      expect(sequence.steps.length).toBeLessThan(FULL.length);
      expect(sequence.shrinking?.fromSteps).toBeGreaterThan(sequence.steps.length);
      expect(sequence.reproduction?.match(/^curl /gm)).toHaveLength(sequence.steps.length);
      // The evidence names the step that wrote and the step that read, where two steps are compared.
      const found = counted.find((f) => f.check === check)!;
      expect(found.received).toMatch(/^step \d+ \(/);
      tally.caught++;
    },
    60_000,
  );

  it.each(SERVER_CHOICES.map((c) => [c.choice, c.what] as const))(
    "a server that %s (%s) passes, every step judged",
    async (choice) => {
      const { summary, results } = await run({ choice });
      expect(statefulFindings(results), JSON.stringify(statefulFindings(results), null, 1)).toEqual([]);
      expect(summary.exitCode).toBe(0);
      expect(results[0]?.sequence?.steps).toEqual(FULL);
      expect(results[0]?.sequence?.notes).toEqual([]);
      tally.choicesPassed++;
    },
    60_000,
  );

  it("an OpenAPI link is followed: the plant a create's answer names is read, and a lost write fails the link too", async () => {
    const passing = await run({});
    const chain = passing.results.find((r) => r.fixture === "generated-stateful-links-createPlant");
    expect(chain?.outcome).toBe("pass");
    expect(chain?.sequence?.steps).toEqual(["createPlant", "getPlant (link GetPlant)"]);
    const lost = await run({ fault: "lost-write" });
    const failed = lost.results.find((r) => r.fixture === "generated-stateful-links-createPlant");
    const checks = failed!.steps.flatMap((s) => s.findings.filter((f) => f.counts).map((f) => f.check));
    expect(checks).toEqual(["stateful.link-available"]);
    expect(failed?.sequence?.reproduction?.match(/^curl /gm)).toHaveLength(2);
  });

  it("--seed replays the same sequence, the same values but for fresh ids and filter texts", async () => {
    const server = await startStatefulServer({ fault: "patch-drops-unsent" });
    try {
      const once = () =>
        runConformance({
          target: server.url,
          token: TOKEN,
          contract,
          noFixtures: true,
          generate: { count: 5 },
          only: ["generated-stateful-createPlant"],
          seed: 11n,
          levels: ["stateful"],
        });
      const fresh = (text: string | undefined) =>
        text
          ?.replace(/fresh-[0-9a-f]{16}/g, "fresh-X")
          .replace(/never-made-[0-9a-f]{12}/g, "never-made-X")
          .replace(/🌱 [0-9a-f]{12}/g, "🌱 X")
          .replace(/\d{13,}/g, "N");
      const [first, second] = [await once(), await once()];
      expect(first.results[0]?.sequence?.steps).toEqual(second.results[0]?.sequence?.steps);
      expect(fresh(first.results[0]?.sequence?.reproduction)).toBe(fresh(second.results[0]?.sequence?.reproduction));
      // The ids themselves are new each run: a replay never collides with what the first run made.
      expect(first.results[0]?.sequence?.reproduction).not.toBe(second.results[0]?.sequence?.reproduction);
    } finally {
      await server.close();
    }
  }, 60_000);

  it("by default the level counts: a broken promise fails it and the run (exit 1); --skip 'stateful.*' opts out", async () => {
    const { summary, results } = await run({ fault: "no-op-delete" }, []);
    expect(summary.exitCode).toBe(1);
    expect(summary.levels).toEqual([
      { level: "contract", verdict: "pass", failedCases: [] },
      { level: "stateful", verdict: "fail", failedCases: ["generated-stateful-createPlant"] },
    ]);
    const warnings = statefulFindings(results);
    expect(warnings.map((f) => [f.check, f.severity, f.counts])).toContainEqual([
      "stateful.delete-effective",
      "warning",
      true,
    ]);
    // A case with a stateful failure is never shown as passing.
    expect(results.find((r) => r.fixture === "generated-stateful-createPlant")?.outcome).toBe("fail");
    const server = await startStatefulServer({ fault: "no-op-delete" });
    try {
      const skipped = await runConformance({
        target: server.url,
        token: TOKEN,
        contract,
        noFixtures: true,
        generate: { count: 3 },
        seed: 7n,
        skip: ["stateful.*"],
      });
      expect(skipped.summary.exitCode).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("--skip leaves the sequences out, and a stateful check id can be skipped alone", async () => {
    const server = await startStatefulServer({ fault: "ignores-limit" });
    try {
      const base = { target: server.url, token: TOKEN, contract, noFixtures: true, generate: { count: 3 }, seed: 7n };
      const skipped = await runConformance({ ...base, levels: ["stateful"], skip: ["generated-stateful-*"] });
      expect(skipped.results.some((r) => r.sequence !== undefined)).toBe(false);
      expect(skipped.summary.levels.map((l) => l.level)).toEqual(["contract", "stateful"]);
      const check = await runConformance({
        ...base,
        levels: ["stateful"],
        only: ["generated-stateful-*"],
        skip: ["stateful.list-limit"],
      });
      expect(statefulFindings(check.results)).toEqual([]);
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe("the stateful phase against the kit's own mock engine", () => {
  it.each([
    ["the stateful document", contract],
    ["the multi-operation document", multiOp],
  ] as const)(
    "%s: every sequence passes, counted, with no stateful finding",
    async (_name, c) => {
      const server = await startMockServer({ contract: c, host: "127.0.0.1", port: 0 });
      try {
        const { summary, results } = await runConformance({
          target: server.url,
          token: DEV_TOKEN,
          contract: c,
          noFixtures: true,
          generate: { count: 10 },
          seed: 5n,
          levels: ["stateful"],
        });
        const sequences = results.filter((r) => r.sequence !== undefined);
        expect(sequences.length).toBeGreaterThan(0);
        expect(statefulFindings(results)).toEqual([]);
        expect(sequences.every((r) => r.sequence!.notes.length === 0)).toBe(true);
        expect(summary.exitCode, JSON.stringify(results.filter((r) => r.outcome !== "pass")).slice(0, 3000)).toBe(0);
      } finally {
        await server.close();
      }
    },
    60_000,
  );
});

describe("the CLI: serve --spec as the target, conformance --level stateful with every report", () => {
  let served: Spawned | undefined;
  afterEach(() => stopSpawned(served));

  it("passes the mock of the stateful document, the level counted and stated in every report and the certificate", async () => {
    served = spawnCli(["serve", "--spec", STATEFUL_SPEC, "--port", "0", "--quiet"]);
    const [, url] = await served.waitFor(/listening on (http:\/\/\S+)/);
    const dir = tempDir("plantstore-stateful-");
    const file = (name: string) => join(dir, name);
    const r = await runCli(
      [
        "conformance",
        "--target",
        url!,
        "--spec",
        STATEFUL_SPEC,
        "--generate",
        "3",
        "--no-fixtures",
        "--level",
        "stateful",
        "--seed",
        "9",
        "--report",
        `json=${file("r.json")}`,
        "--report",
        `markdown=${file("r.md")}`,
        "--report",
        `junit=${file("r.xml")}`,
        "--report",
        `html=${file("r.html")}`,
        "--certificate",
        file("cert.json"),
      ],
      { PLANTSTORE_TOKEN: DEV_TOKEN },
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/PASS +generated-stateful-createPlant/);
    expect(r.stdout).toContain("levels: contract PASS; stateful PASS");
    const json = JSON.parse(readFileSync(file("r.json"), "utf8")) as { summary: { levels: unknown[] } };
    expect(json.summary.levels).toContainEqual({ level: "stateful", verdict: "pass", failedCases: [] });
    expect(readFileSync(file("r.md"), "utf8")).toContain("### Stateful sequences");
    expect(readFileSync(file("r.xml"), "utf8")).toContain('name="level.stateful" value="pass"');
    expect(readFileSync(file("r.html"), "utf8")).toContain('<section id="sequences">');
    const cert = JSON.parse(readFileSync(file("cert.json"), "utf8")) as { levels: unknown[] };
    expect(cert.levels).toContainEqual({ level: "stateful", verdict: "pass", failedCases: 0 });
  }, 120_000);

  it("a broken store exits 1 with the shortest sequence, its evidence and its commands on the console", async () => {
    const server = await startStatefulServer({ fault: "no-op-delete" });
    try {
      const r = await runCli(
        ["conformance", "--target", server.url, "--spec", STATEFUL_SPEC, "--generate", "3", "--no-fixtures"].concat([
          "--only",
          "generated-stateful-createPlant",
          "--level",
          "stateful",
        ]),
        { PLANTSTORE_TOKEN: TOKEN },
      );
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.stdout).toContain("failure [stateful] stateful.delete-effective: A is still there, unchanged");
      expect(r.stdout).toMatch(
        /sequence on \/plants \(shrunk from \d+ steps in \d+ runs, plainest values\): create A -> delete A -> read A/,
      );
      expect(r.stdout).toContain("reproduce the sequence:");
      expect(r.stdout.match(/^ {6}curl .* -X DELETE /gm)).toHaveLength(1);
      expect(r.stdout).toContain(
        "verdict: FAIL, the target breaks level stateful (the contract itself: PASS) (exit 1)",
      );
    } finally {
      await server.close();
    }
  }, 120_000);
});

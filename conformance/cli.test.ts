import { createServer as createNetServer, type Server as NetServer, type Socket } from "node:net";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { XMLParser } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../src/server/index.js";
import { KIT_ROOT } from "../src/paths.js";
import { FAULTY } from "../test/catalogue.js";
import { kitContract, TOKEN } from "../test/helpers.js";
import { MULTI_OP_SPEC, startMultiOpServer } from "../test/multi-op-server.js";
import { runCli } from "../test/process.js";
import { tempDir } from "../test/temp-dir.js";
import { startVariant } from "../test/variant-server.js";

// A token that must never appear in any output; it is what the reference server accepts here.
const SECRET = "tok-Secr3t-8c1f0e77ab";
const contract = await kitContract();
let server: ReferenceServer;
const dir = tempDir("plantstore-conformance-");

beforeAll(async () => {
  server = await startReferenceServer({ contract, port: 0, tokens: [SECRET] });
});
afterAll(async () => {
  await server.close(100);
});

const everything = (r: { stdout: string; stderr: string }, ...files: string[]): string =>
  [r.stdout, r.stderr, ...files.map((f) => readFileSync(f, "utf8"))].join("\n");

describe("plantstore conformance against the reference server", () => {
  it("--only selects generated cases by id and by operation; a pattern matching nothing exits 2 on a generated run", async () => {
    const base = ["conformance", "--target", server.url, "--no-fixtures", "--generate", "5", "--seed", "4"];
    const one = await runCli([...base, "--only", "generated-negative-*"], { PLANTSTORE_TOKEN: SECRET });
    expect(one.code, one.stdout + one.stderr).toBe(0);
    expect(one.stdout).toContain("generated-negative-createPlant");
    expect(one.stdout).not.toContain("generated-positive-createPlant");
    expect(one.stdout).not.toContain("generated-auth-createPlant");
    const byOperation = await runCli([...base, "--skip", "createPlant"], { PLANTSTORE_TOKEN: SECRET });
    expect(byOperation.code).toBe(2);
    expect(byOperation.stderr).toContain("--only/--skip leave no case to run");
    const typo = await runCli([...base, "--only", "generated-positive-createPlantz"], { PLANTSTORE_TOKEN: SECRET });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(
      '--only "generated-positive-createPlantz" matches no case id, no operation and no check id',
    );
  });

  it("passes every case, twice in a row against the same server, with JSON and JUnit reports that parse", async () => {
    for (const round of [1, 2]) {
      const json = join(dir, `run${round}.json`);
      const junit = join(dir, `run${round}.xml`);
      const r = await runCli(
        ["conformance", "--target", server.url, "--report", `json=${json}`, "--report", `junit=${junit}`],
        { PLANTSTORE_TOKEN: SECRET },
      );
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const report = JSON.parse(readFileSync(json, "utf8"));
      expect(report.summary.total).toBeGreaterThanOrEqual(40);
      expect(report.summary.passed).toBe(report.summary.total);
      const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(
        readFileSync(junit, "utf8"),
      );
      const suite = xml.testsuites.testsuite;
      // A stable name (no host and port), when it ran, and paths relative to where the command ran.
      expect(suite.name).toBe("conformance");
      expect(suite.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
      expect(suite.properties.property.find((p: { name: string }) => p.name === "spec").value).toBe(
        "spec/openapi.yaml",
      );
      expect(suite.testcase[0].file).toMatch(/^fixtures\/[a-z0-9.-]+\.json$/);
      expect(suite.testcase[0].properties.property).toMatchObject([
        { name: "description" },
        { name: "level.contract", value: "pass" },
      ]);
      expect(suite.properties.property).toContainEqual({ name: "level.contract", value: "pass" });
      expect(report.summary.levels).toEqual([{ level: "contract", verdict: "pass", failedCases: [] }]);
      expect(report.results[0].levels).toEqual({ contract: "pass" });
      expect(Number(suite.tests)).toBe(report.summary.total);
      expect(Number(suite.failures)).toBe(0);
      expect(suite.testcase).toHaveLength(report.summary.total);
      expect(everything(r, json, junit)).not.toContain(SECRET);
      expect(r.stdout).toContain("verdict: PASS (exit 0)");
      expect(r.stdout).toContain("coverage: 1 of 1 operations, 2 of 2 documented statuses");
      expect(report.summary.coverage.operations).toEqual({ total: 1, exercised: 1, notExercised: [] });
    }
  });

  it("reports the operations a run left out, and --min-coverage turns a partial pass into exit 1", async () => {
    // The kit's contract grown by a read: the fixtures name only the create.
    const spec = join(dir, "grown.yaml");
    const grown = readFileSync(new URL("../spec/openapi.yaml", import.meta.url), "utf8").replace(
      /^components:/m,
      [
        "  /plants/{id}:",
        "    get:",
        "      operationId: readPlant",
        "      parameters:",
        "        - { name: id, in: path, required: true, schema: { type: integer, format: int64 } }",
        "      responses:",
        "        '200':",
        "          description: the plant",
        "          content:",
        "            application/json:",
        "              schema: { $ref: '#/components/schemas/Plant' }",
        "components:",
      ].join("\n"),
    );
    writeFileSync(spec, grown);
    const json = join(dir, "grown.json");
    const fixtures = ["--fixtures", join(KIT_ROOT, "fixtures")];
    const plain = await runCli(
      ["conformance", "--target", server.url, "--spec", spec, ...fixtures, "--report", `json=${json}`],
      {
        PLANTSTORE_TOKEN: SECRET,
      },
    );
    expect(plain.code, plain.stdout + plain.stderr).toBe(0);
    expect(plain.stdout).toContain("coverage: 1 of 2 operations, 2 of 3 documented statuses");
    expect(plain.stdout).toContain(
      "not exercised: GET /plants/{id} (readPlant): no fixture names it; --generate makes cases for it",
    );
    expect(plain.stdout).toContain("verdict: PASS, 1 of 2 operations not exercised (exit 0)");
    const report = JSON.parse(readFileSync(json, "utf8"));
    expect(report.summary.coverage.operations).toMatchObject({ total: 2, exercised: 1 });
    expect(report.summary.coverage.operations.notExercised[0].operation).toBe("readPlant");

    const gated = await runCli(
      ["conformance", "--target", server.url, "--spec", spec, ...fixtures, "--min-coverage", "100"],
      {
        PLANTSTORE_TOKEN: SECRET,
      },
    );
    expect(gated.code, gated.stdout + gated.stderr).toBe(1);
    expect(gated.stdout).toContain("coverage too low: 1 of 2 operations exercised (50.0%), under --min-coverage 100%");
    expect(gated.stdout).toContain(
      "verdict: FAIL, too little of the contract was exercised, 1 of 2 operations not exercised (exit 1)",
    );

    const bad = await runCli(["conformance", "--target", server.url, "--min-coverage", "101"], {
      PLANTSTORE_TOKEN: SECRET,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--min-coverage must be an integer from 0 to 100");
  });

  it("exits 1 against a faulty server, with the rule, the evidence and a curl command, and no token anywhere", async () => {
    // Echoes the Authorization header back in its Error, as a careless server might.
    const faulty = await startVariant(
      contract,
      (r, _b, reference) => {
        const ref = reference();
        return ref.status === 200
          ? {
              status: 500,
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ error: 500, message: `failed for ${String(r.headers.authorization)}` }),
            }
          : ref;
      },
      [SECRET],
    );
    try {
      const json = join(dir, "faulty.json");
      const junit = join(dir, "faulty.xml");
      const mdFile = join(dir, "faulty.md");
      const r = await runCli([
        "conformance",
        "--target",
        faulty.url,
        "--token",
        SECRET,
        "--only",
        "valid-basic",
        "--report",
        `json=${json}`,
        "--report",
        `junit=${junit}`,
        "--report",
        `markdown=${mdFile}`,
      ]);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain("FAIL  valid-basic");
      expect(r.stdout).toContain("failure status.no-5xx: server error 500");
      expect(r.stdout).toMatch(/rule: +spec\/openapi\.yaml#\/paths\/~1plants\/post\/responses/);
      expect(r.stdout).toContain('-H "authorization: Bearer ${PLANTSTORE_TOKEN}"');
      expect(r.stdout).toContain("[REDACTED]");
      // The recap at the end: one line per failing case, with its check, message and rule.
      const markdown = readFileSync(mdFile, "utf8");
      expect(markdown).toContain("## Contract conformance: FAIL (exit 1)");
      expect(markdown).toContain("| valid-basic | contract | status.no-5xx | server error 500 |");
      expect(markdown).not.toContain(SECRET);
      const recap = r.stdout.slice(r.stdout.indexOf("failing cases ("));
      expect(recap).toMatch(
        /^failing cases \(1\):\n  FAIL  valid-basic: status\.no-5xx: server error 500 \(spec\/openapi\.yaml#/,
      );
      const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(
        readFileSync(junit, "utf8"),
      );
      expect(xml.testsuites.testsuite.testcase.failure.type).toBe("status.no-5xx");
      expect(everything(r, json, junit)).not.toContain(SECRET);
    } finally {
      await faulty.close();
    }
  });

  it("exits 2 when nothing listens at the target, and says so in the reports", async () => {
    const closed = await startReferenceServer({ contract, port: 0 });
    const url = closed.url;
    await closed.close(10);
    const junit = join(dir, "unreachable.xml");
    const r = await runCli(["conformance", "--target", url, "--report", `junit=${junit}`], {
      PLANTSTORE_TOKEN: SECRET,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("the target could not be reached");
    expect(r.stderr).toContain("[PS_TARGET_UNREACHABLE]");
    expect(readFileSync(junit, "utf8")).toContain('type="PS_TARGET_UNREACHABLE"');
  });

  it("ends a default run within 60 s against a target that accepts connections and never answers", async () => {
    const sockets: Socket[] = [];
    const silent: NetServer = createNetServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const started = Date.now();
      const r = await runCli(["conformance", "--target", `http://127.0.0.1:${port}`], { PLANTSTORE_TOKEN: SECRET });
      const seconds = (Date.now() - started) / 1000;
      expect(r.code).toBe(2);
      expect(r.stdout).toContain("no usable answer: timeout");
      expect(r.stdout).toMatch(/not sent: \d+ cases \(the target had stopped answering\)/);
      expect(r.stdout).toContain("could not judge the target: the target gave no HTTP answer to any request");
      expect(seconds).toBeLessThan(60);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  }, 70_000);

  it.each([
    [["conformance", "--token", "x"], "--target URL is required"],
    [["conformance", "--target", "http://127.0.0.1:1"], "--token is required"],
    [["conformance", "--target", "ftp://x", "--token", "x"], "--target must be http or https"],
    [["conformance", "--target", "not a url", "--token", "x"], "is not a URL"],
    [
      ["conformance", "--target", "http://127.0.0.1:1", "--token", "x", "--report", "xml=out"],
      "must be json=FILE, junit=FILE, markdown=FILE or html=FILE",
    ],
    [
      ["conformance", "--target", "http://127.0.0.1:1", "--token", "x", "--timeout", "0"],
      "--timeout must be an integer from 1",
    ],
    [
      ["conformance", "--target", "http://127.0.0.1:1", "--token", "x", "--spec", "/nope.yaml"],
      "the OpenAPI document could not be read: /nope.yaml",
    ],
    [["conformance", "--target", "http://127.0.0.1:1", "--token", "x", "--bogus"], "--bogus"],
  ])("%j exits 2: %s", async (args, message) => {
    const r = await runCli(args, { PLANTSTORE_TOKEN: "" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it("exits 2 naming the file and field of a malformed fixture", async () => {
    const fixtures = tempDir("plantstore-fixtures-");
    writeFileSync(
      join(fixtures, "broken.json"),
      JSON.stringify({
        id: "broken",
        description: "x",
        operation: "createPlant",
        steps: [{ request: {}, expect: { kind: "sometimes" } }],
      }),
    );
    const r = await runCli(["conformance", "--target", server.url, "--fixtures", fixtures], {
      PLANTSTORE_TOKEN: SECRET,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("broken.json");
    expect(r.stderr).toContain("/steps/0/expect/kind");
    expect(r.stderr).toContain("[PS_FIXTURE_INVALID]");
  });

  it("--level gives each level its own verdict: a server refusing empty names passes the contract, fails accepts-all-valid", async () => {
    const refusing = FAULTY.find((e) => e.name === "rejects empty names")!;
    const variant = await startVariant(contract, refusing.variant);
    try {
      const md = join(dir, "levels.md");
      const args = ["conformance", "--target", variant.url, "--only", "valid-name-empty,valid-basic"];
      const contractOnly = await runCli(args, { PLANTSTORE_TOKEN: TOKEN });
      expect(contractOnly.code).toBe(0);
      expect(contractOnly.stdout).toContain("warning [accepts-all-valid] valid.accepted");
      expect(contractOnly.stdout).toContain("levels: contract PASS\n");
      const withLevel = await runCli([...args, "--level", "accepts-all-valid,http-rfc", "--report", `markdown=${md}`], {
        PLANTSTORE_TOKEN: TOKEN,
      });
      expect(withLevel.code).toBe(1);
      expect(withLevel.stdout).toContain("failure [accepts-all-valid] valid.accepted");
      expect(withLevel.stdout).toContain("levels: contract PASS; accepts-all-valid FAIL (1 case); http-rfc PASS");
      expect(withLevel.stdout).toContain(
        "verdict: FAIL, the target breaks level accepts-all-valid (the contract itself: PASS) (exit 1)",
      );
      expect(readFileSync(md, "utf8")).toContain("| accepts-all-valid | FAIL | 1 |");
      const strict = await runCli([...args, "--strict"], { PLANTSTORE_TOKEN: TOKEN });
      expect(strict.code).toBe(1);
      expect(strict.stdout).toContain(
        "levels: contract PASS; accepts-all-valid FAIL (1 case); rejects-all-invalid PASS; http-rfc PASS; documented-statuses PASS",
      );
    } finally {
      await variant.close();
    }
  });

  it("exits 2 naming an unknown level, and a fixture that still says expect.severity", async () => {
    const typo = await runCli(["conformance", "--target", server.url, "--level", "accept-all-valid"], {
      PLANTSTORE_TOKEN: SECRET,
    });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('--level: unknown level "accept-all-valid": one of contract, accepts-all-valid');
    const fixtures = tempDir("plantstore-fixtures-");
    const old = { id: "old", description: "x", operation: "createPlant" };
    const step = { request: { body: { id: 1, name: "a" } }, expect: { kind: "valid", severity: "warning" } };
    writeFileSync(join(fixtures, "old.json"), JSON.stringify({ ...old, steps: [step] }));
    const r = await runCli(["conformance", "--target", server.url, "--fixtures", fixtures], {
      PLANTSTORE_TOKEN: SECRET,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('old.json: field /steps/0/expect/severity: replaced by "level"');
  });

  it("with another spec and no fixtures, generates cases for every operation and says so", async () => {
    const multi = await startMultiOpServer();
    try {
      const json = join(dir, "multi.json");
      const r = await runCli(
        ["conformance", "--spec", MULTI_OP_SPEC, "--target", multi.url, "--seed", "9", "--report", `json=${json}`],
        { PLANTSTORE_TOKEN: TOKEN },
      );
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain("is not the kit's spec and no --fixtures were given: running generated cases");
      expect(r.stdout).toContain("coverage: 5 of 5 operations");
      expect(JSON.parse(readFileSync(json, "utf8")).summary.coverage.operations.notExercised).toEqual([]);
    } finally {
      await multi.close();
    }
  });

  it("--help lists every flag and the exit codes", async () => {
    const r = await runCli(["conformance", "--help"]);
    expect(r.code).toBe(0);
    for (const flag of [
      "--target",
      "--token",
      "--spec",
      "--fixtures",
      "--only",
      "--skip",
      "--seed",
      "--strict",
      "--level",
      "--baseline",
      "--write-baseline",
      "--report",
      "--timeout",
      "--concurrency",
      "--max-response-bytes",
      "--ca",
      "--credential",
      "--min-coverage",
      "--evidence",
      "--insecure",
    ]) {
      expect(r.stdout).toContain(flag);
    }
    expect(r.stdout).toContain("Exit codes: 0");
  });
});

describe("plantstore conformance and Ctrl-C", () => {
  it("stops at once on SIGINT, as a command that waits on nothing should", async () => {
    const slow = await startReferenceServer({ contract, port: 0, tokens: [SECRET], delayMs: 20_000 });
    try {
      const { spawnCli } = await import("../test/process.js");
      const run = spawnCli(["conformance", "--target", slow.url], { PLANTSTORE_TOKEN: SECRET });
      await run.waitFor(/Conformance run: \d+ cases/);
      const sent = Date.now();
      run.child.kill("SIGINT");
      await run.exited;
      expect(run.child.signalCode).toBe("SIGINT");
      expect(Date.now() - sent).toBeLessThan(5_000);
    } finally {
      await slow.close(10);
    }
  });
});

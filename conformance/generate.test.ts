import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseJsonExact } from "../src/contract/index.js";
import { startReferenceServer } from "../src/server/index.js";
import { FAULTY } from "../test/catalogue.js";
import { kitContract, TOKEN } from "../test/helpers.js";
import { runCli } from "../test/process.js";
import { startVariant } from "../test/variant-server.js";
import { freshValue, Random } from "./fresh.js";
import { negativeBodies, positiveBodies } from "./generate.js";
import { runConformance } from "./run.js";

const contract = await kitContract();
const op = contract.operation("createPlant")!;
const entry = op.requestMediaType("application/json")!;
const random = new Random(1n);
const fresh = new Map([["id", () => freshValue("int64-big", random)]]);
const accepted = (text: string): boolean => {
  const p = parseJsonExact(text);
  return p.ok && entry.validate(p.value).length === 0;
};

describe("the generator never lies", () => {
  it("every positive body is accepted by the compiled validator, and they reach the schema's edges", () => {
    const bodies = fc.sample(positiveBodies(contract, op, contract.document, { fresh }), { seed: 1, numRuns: 1_000 });
    expect(bodies.every((b) => accepted(b.text))).toBe(true);
    const names = bodies.map((b) => (JSON.parse(b.text) as { name: string }).name);
    expect(names.some((n) => n === "")).toBe(true);
    expect(names.some((n) => n.length >= 1_000)).toBe(true);
    expect(names.some((n) => /[^\u0000-\u007f]/.test(n))).toBe(true);
    expect(names.some((n) => /(^|[^\ud800-\udbff])[\udc00-\udfff]|[\ud800-\udbff](?![\udc00-\udfff])/.test(n))).toBe(true); // a lone surrogate
    expect(bodies.some((b) => Object.keys(JSON.parse(b.text) as object).some((k) => !["id", "name", "tag"].includes(k)))).toBe(true);
  });

  it("every negative body is rejected by the compiled validator and names the one rule it breaks", () => {
    const bodies = fc.sample(negativeBodies(contract, op, contract.document, { fresh }), { seed: 2, numRuns: 1_000 });
    expect(bodies.every((b) => !accepted(b.text))).toBe(true);
    expect(bodies.every((b) => typeof b.reason === "string" && b.reason.length > 0)).toBe(true);
    const reasons = new Set(bodies.map((b) => b.reason));
    for (const r of ["body/id: required", "body/name: required", "body/id: format int64 (above the range)", "body/id: type integer (sent 0.5)", "body: type object (sent array)"]) {
      expect(reasons.has(r), r).toBe(true);
    }
  });
});

async function withReference<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const server = await startReferenceServer({ contract, port: 0, tokens: [TOKEN] });
  try {
    return await fn(server.url);
  } finally {
    await server.close(100);
  }
}

describe("generated runs", () => {
  it("pass against the reference server: 2,000 cases over two seeds, no failure", async () => {
    for (const seed of [11n, 12n]) {
      const { summary, results } = await withReference((url) => runConformance({ target: url, token: TOKEN, contract, noFixtures: true, seed, generate: { count: 500 } }));
      expect(results.map((r) => r.description)).toEqual([expect.stringContaining("500 generated positive bodies"), expect.stringContaining("500 generated negative bodies")]);
      expect(summary.exitCode, JSON.stringify(results.filter((r) => r.outcome !== "pass"), null, 1).slice(0, 2000)).toBe(0);
    }
  });

  it("--generate alone means 100 bodies per operation and polarity, and the run prints its seed", async () => {
    const r = await withReference((url) => runCli(["conformance", "--target", url, "--generate", "--no-fixtures", "--seed", "3", "--verbose"], { PLANTSTORE_TOKEN: TOKEN }));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("seed 3");
    expect(r.stdout).toContain("PASS  generated-positive-createPlant");
    expect(r.stdout).toContain("PASS  generated-negative-createPlant");
  });

  it("same seed, same cases, same report", async () => {
    const report = async () => {
      const { results } = await withReference((url) => runConformance({ target: url, token: TOKEN, contract, noFixtures: true, seed: 99n, generate: { count: 50 } }));
      return results.map(({ fixture, outcome, description }) => ({ fixture, outcome, description }));
    };
    expect(await report()).toEqual(await report());
  });

  it("shrinks a failure to a smallest failing request, with a curl command that reproduces it", async () => {
    const server = await startVariant(contract, (_r, body, reference) => (typeof body?.name === "string" && body.name.length > 1_000 ? { status: 500, headers: {}, body: "" } : reference()));
    try {
      const { summary, results } = await runConformance({ target: server.url, token: TOKEN, contract, noFixtures: true, seed: 5n, generate: { count: 300 } });
      expect(summary.exitCode).toBe(1);
      const failing = results.find((r) => r.outcome === "fail")!;
      const name = (JSON.parse(failing.generated!.body) as { name: string }).name;
      expect(name.length).toBeGreaterThan(1_000);
      expect(name.length).toBeLessThanOrEqual(1_010);
      const curl = failing.steps[0]!.curl!;
      const { stdout } = await promisify(execFile)("sh", ["-c", `${curl} -o /dev/null -w '%{http_code}'`], { env: { ...process.env, PLANTSTORE_TOKEN: TOKEN } });
      expect(stdout.trim()).toBe("500");
    } finally {
      await server.close();
    }
  });

  it.each([
    "answers 500 to a valid create",
    "checks the int64 range on doubles (accepts 2^63)",
    "no integer check on id (accepts 1.5)",
    "accepts a null id",
    "accepts a body that is an array",
    "rejects ids beyond 2^53",
    "rejects empty names",
    "rejects names over 1,000 characters",
    "rejects non-ASCII names",
    "rejects unknown properties",
  ])("finds the fault of a server that %s, without any fixture", async (name) => {
    const faulty = FAULTY.find((e) => e.name === name)!;
    const server = await startVariant(contract, faulty.stateful?.() ?? faulty.variant);
    try {
      const { summary } = await runConformance({ target: server.url, token: TOKEN, contract, noFixtures: true, seed: 3n, strict: faulty.strict === true, generate: { count: 200 } });
      expect(summary.exitCode).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("--save-failures writes the failing case as a fixture the regular suite can load", async () => {
    const server = await startVariant(contract, (_r, body, reference) => (body?.tag === "" ? { status: 500, headers: {}, body: "" } : reference()));
    const dir = mkdtempSync(join(tmpdir(), "plantstore-saved-"));
    try {
      const r = await runCli(["conformance", "--target", server.url, "--generate", "200", "--no-fixtures", "--seed", "8", "--save-failures", dir], { PLANTSTORE_TOKEN: TOKEN });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain("seed 8");
      const file = readdirSync(dir).find((f) => f.startsWith("generated-positive"));
      expect(file).toBe("generated-positive-createplant-8.json");
      const again = await runCli(["conformance", "--target", server.url, "--fixtures", dir], { PLANTSTORE_TOKEN: TOKEN });
      expect(again.code).toBe(1);
      expect(JSON.parse(readFileSync(join(dir, file!), "utf8")).steps[0].expect).toEqual({ kind: "valid", refusable: true });
    } finally {
      await server.close();
    }
  });
});

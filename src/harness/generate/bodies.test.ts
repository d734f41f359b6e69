import { execFile } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseJsonExact, type CheckedRequest } from "../../contract/index.js";
import { startReferenceServer } from "../../server/index.js";
import { FAULTY } from "../../../test/catalogue.js";
import { kitContract, TOKEN, withReference } from "../../../test/helpers.js";
import { runCli } from "../../../test/process.js";
import { tempDir } from "../../../test/temp-dir.js";
import { startVariant } from "../../../test/variant-server.js";
import { freshValue, Random } from "../fresh.js";
import { negativeBodies, positiveBodies } from "./bodies.js";
import { refusedAt } from "./mutations.js";
import { runConformance, runOrThrow } from "../run.js";
import { openApi } from "../../../test/openapi-doc.js";

const contract = await kitContract();
const op = contract.operation("createPlant")!;
const entry = op.requestMediaType("application/json")!;
const random = new Random(1n);
const fresh = new Map([["id", () => freshValue("int64-big", random)]]);
const sample = <T>(arb: fc.Arbitrary<T | null>, seed: number): T[] =>
  fc
    .sample(arb, { seed, numRuns: 3_000 })
    .filter((b): b is T => b !== null)
    .slice(0, 1_000);
const accepted = (text: string): boolean => {
  const p = parseJsonExact(text);
  return p.ok && entry.validate(p.value).length === 0;
};

describe("the generator never lies", () => {
  it("every positive body is accepted by the compiled validator, and they reach the schema's edges", () => {
    const bodies = sample(positiveBodies(contract, op, contract.document, { fresh }), 1);
    expect(bodies.length).toBe(1_000);
    expect(bodies.every((b) => accepted(b.text))).toBe(true);
    const names = bodies.map((b) => (JSON.parse(b.text) as { name: string }).name);
    expect(names.some((n) => n === "")).toBe(true);
    expect(names.some((n) => n.length >= 1_000)).toBe(true);
    expect(names.some((n) => /[^\u0000-\u007f]/.test(n))).toBe(true);
    expect(names.some((n) => /(^|[^\ud800-\udbff])[\udc00-\udfff]|[\ud800-\udbff](?![\udc00-\udfff])/.test(n))).toBe(
      true,
    ); // a lone surrogate
    expect(
      bodies.some((b) => Object.keys(JSON.parse(b.text) as object).some((k) => !["id", "name", "tag"].includes(k))),
    ).toBe(true);
  });

  it("every negative body is rejected by the compiled validator and names the one rule it breaks", () => {
    const bodies = sample(negativeBodies(contract, op, contract.document, { fresh }), 2);
    expect(bodies.length).toBe(1_000);
    expect(bodies.every((b) => !accepted(b.text))).toBe(true);
    expect(bodies.every((b) => typeof b.reason === "string" && b.reason.length > 0)).toBe(true);
    const reasons = new Set(bodies.map((b) => b.reason));
    for (const r of [
      "body/id: required",
      "body/name: required",
      "body/id: format int64 (above the range)",
      "body/id: type integer (sent 0.5)",
      "body: type object (sent array)",
    ]) {
      expect(reasons.has(r), r).toBe(true);
    }
  });
});

describe("generated runs", () => {
  it("pass against the reference server: 2,000 cases over two seeds, no failure", async () => {
    for (const seed of [11n, 12n]) {
      const { summary, results } = await withReference((url) =>
        runConformance({ target: url, token: TOKEN, contract, noFixtures: true, seed, generate: { count: 500 } }),
      );
      expect(results.map((r) => r.description)).toEqual([
        expect.stringContaining("500 generated positive requests"),
        expect.stringContaining("500 generated negative requests"),
        expect.stringContaining("without credentials, with wrong ones and with near misses"),
      ]);
      expect(
        summary.exitCode,
        JSON.stringify(
          results.filter((r) => r.outcome !== "pass"),
          null,
          1,
        ).slice(0, 2000),
      ).toBe(0);
    }
  });

  it("--generate alone means 100 bodies per operation and polarity, and the run prints its seed", async () => {
    const r = await withReference((url) =>
      runCli(["conformance", "--target", url, "--generate", "--no-fixtures", "--seed", "3", "--verbose"], {
        PLANTSTORE_TOKEN: TOKEN,
      }),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("seed 3");
    expect(r.stdout).toContain("PASS  generated-positive-createPlant");
    expect(r.stdout).toContain("PASS  generated-negative-createPlant");
  });

  it("same seed, same cases, same report", async () => {
    const report = async () => {
      const { results } = await withReference((url) =>
        runConformance({ target: url, token: TOKEN, contract, noFixtures: true, seed: 99n, generate: { count: 50 } }),
      );
      return results.map(({ fixture, outcome, description }) => ({ fixture, outcome, description }));
    };
    expect(await report()).toEqual(await report());
  });

  it("shrinks a failure to a smallest failing request, with a curl command that reproduces it", async () => {
    const server = await startVariant(contract, (_r, body, reference) =>
      typeof body?.name === "string" && body.name.length > 1_000 ? { status: 500, headers: {}, body: "" } : reference(),
    );
    try {
      const { summary, results } = await runConformance({
        target: server.url,
        token: TOKEN,
        contract,
        noFixtures: true,
        seed: 5n,
        generate: { count: 300 },
      });
      expect(summary.exitCode).toBe(1);
      const failing = results.find((r) => r.outcome === "fail")!;
      const name = (JSON.parse(failing.generated!.body) as { name: string }).name;
      expect(name.length).toBeGreaterThan(1_000);
      expect(name.length).toBeLessThanOrEqual(1_010);
      const curl = failing.steps[0]!.curl!;
      const { stdout } = await promisify(execFile)("sh", ["-c", `${curl} -o /dev/null -w '%{http_code}'`], {
        env: { ...process.env, PLANTSTORE_TOKEN: TOKEN },
      });
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
      const { summary } = await runConformance({
        target: server.url,
        token: TOKEN,
        contract,
        noFixtures: true,
        seed: 3n,
        levels: faulty.level === undefined ? [] : [faulty.level],
        generate: { count: 200 },
      });
      expect(summary.exitCode).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("--save-failures writes the failing case as a fixture the regular suite can load", async () => {
    const server = await startVariant(contract, (_r, body, reference) =>
      body?.tag === "" ? { status: 500, headers: {}, body: "" } : reference(),
    );
    const dir = tempDir("plantstore-saved-");
    try {
      const r = await runCli(
        [
          "conformance",
          "--target",
          server.url,
          "--generate",
          "200",
          "--no-fixtures",
          "--seed",
          "8",
          "--save-failures",
          dir,
        ],
        { PLANTSTORE_TOKEN: TOKEN },
      );
      expect(r.code).toBe(1);
      expect(r.stdout).toContain("seed 8");
      const file = readdirSync(dir).find((f) => f.startsWith("generated-positive"));
      expect(file).toBe("generated-positive-createplant-8.json");
      // Twice: the saved case takes a fresh id each run, so it fails for its fault, never for a repeated id.
      for (const round of [1, 2]) {
        const again = await runCli(
          ["conformance", "--target", server.url, "--fixtures", dir, "--only", "generated-positive-*", "--strict"],
          { PLANTSTORE_TOKEN: TOKEN },
        );
        expect(again.code, `round ${round}`).toBe(1);
        expect(again.stdout).toContain("status.no-5xx");
        expect(again.stdout).not.toContain("got 409");
      }
      expect(readFileSync(join(dir, file!), "utf8")).toContain("{{fresh:id:int64}}");
      expect(JSON.parse(readFileSync(join(dir, file!), "utf8")).steps[0].expect).toEqual({
        kind: "valid",
        refusable: true,
      });
    } finally {
      await server.close();
    }
  });
});

describe("generation on other specs never hangs, crashes or passes on nothing", () => {
  const specWith = (schema: unknown, mediaType = "application/json"): string => {
    const file = join(tempDir("plantstore-genspec-"), "spec.json");
    writeFileSync(
      file,
      JSON.stringify(
        openApi(
          {
            "/things": {
              post: {
                operationId: "createThing",
                requestBody: { required: true, content: { [mediaType]: { schema } } },
                responses: { "200": { description: "ok" } },
              },
            },
          },
          {
            components: {
              schemas: {
                Node: {
                  type: "object",
                  required: ["name"],
                  properties: { name: { type: "string" }, parent: { $ref: "#/components/schemas/Node" } },
                },
              },
            },
          },
        ),
      ),
    );
    return file;
  };
  const accepting = async () => {
    const { createServer } = await import("node:http");
    const server = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return {
      url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
      close: () => new Promise((r) => server.close(r)),
    };
  };

  it.each([
    ["an int32 id", { type: "object", required: ["id"], properties: { id: { type: "integer", format: "int32" } } }],
    ["a string id", { type: "object", required: ["id"], properties: { id: { type: "string" } } }],
    ["a string body", { type: "string" }],
    ["a union of scalars", { oneOf: [{ type: "string" }, { type: "integer" }] }],
    ["a self-referencing schema", { $ref: "#/components/schemas/Node" }],
    // No rule to break: no negative case is planned, and the one positive case passes.
    ["an empty schema", {}],
  ])(
    "%s: ends within --max-time, with a verdict",
    async (_name, schema) => {
      const target = await accepting();
      try {
        const started = Date.now();
        const { summary, results } = await runConformance({
          target: target.url,
          token: TOKEN,
          spec: specWith(schema),
          noFixtures: true,
          seed: 1n,
          generate: { count: 30, maxTimeMs: 5_000 },
        });
        expect(Date.now() - started).toBeLessThan(20_000);
        // Either judged (this server accepts everything, so negatives fail), or an error saying why not.
        const breakable = Object.keys(schema).length > 0;
        expect(results).toHaveLength(breakable ? 2 : 1);
        for (const r of results) expect(["pass", "fail", "error"]).toContain(r.outcome);
        if (breakable) expect(summary.exitCode).not.toBe(0);
        else expect(results[0]).toMatchObject({ fixture: "generated-positive-createThing", outcome: "pass" });
      } finally {
        await target.close();
      }
    },
    30_000,
  );

  it("a spec with nothing to generate and no fixtures is a usage error, not an empty pass", async () => {
    await expect(
      runOrThrow({
        target: "http://127.0.0.1:1",
        token: TOKEN,
        // A required body of a media type that is not JSON: nothing the generator can make.
        spec: specWith({ type: "object" }, "application/xml"),
        noFixtures: true,
        generate: { count: 10 },
      }),
    ).rejects.toThrow(/nothing to run/);
  });

  it("a --max-time the run reaches stops it: exit 2, the run says after how many cases, the rest say not run", async () => {
    const server = await startReferenceServer({ contract, port: 0, tokens: [TOKEN], delayMs: 200 });
    try {
      const { summary, results } = await runConformance({
        target: server.url,
        token: TOKEN,
        contract,
        noFixtures: true,
        seed: 1n,
        generate: { count: 100, maxTimeMs: 100 },
      });
      expect(summary.exitCode).toBe(2);
      expect(summary.runError).toMatch(/^stopped at the time limit \(--max-time 0.1 s\) after \d+ of 3 cases/);
      expect(results.map((r) => r.fixture)).toEqual([
        "generated-positive-createPlant",
        "generated-negative-createPlant",
        "generated-auth-createPlant",
      ]);
      // The cut is data (timeLimit), its words say so; the count of cases not run comes from the data.
      const cut = results.filter((r) => r.timeLimit !== undefined);
      expect(cut.length).toBeGreaterThan(0);
      for (const r of cut) expect(r.error).toMatch(/time limit \(--max-time\)/);
      const notRun = results.filter((r) => r.timeLimit === "before-case").length;
      expect(summary.runError).toContain(`after ${3 - notRun} of 3 cases`);
    } finally {
      await server.close(10);
    }
  });

  it("a server that refuses every valid body fails on the plainest one, even without fixtures", async () => {
    const server = await startVariant(contract, () => ({
      status: 400,
      headers: { "content-type": "application/json" },
      body: '{"error":400,"message":"no"}',
    }));
    try {
      const { summary, results } = await runConformance({
        target: server.url,
        token: TOKEN,
        contract,
        noFixtures: true,
        seed: 1n,
        generate: { count: 20 },
      });
      expect(summary.exitCode).toBe(1);
      expect(results[0]?.description).toContain("plainest valid request");
    } finally {
      await server.close();
    }
  });

  it("keeps the warnings of every generated body, not only the last one's", async () => {
    const server = await startVariant(contract, (_r, body, reference) =>
      typeof body?.name === "string" && body.name.length > 1_000
        ? { status: 400, headers: { "content-type": "application/json" }, body: '{"error":400,"message":"too long"}' }
        : reference(),
    );
    try {
      const { results } = await runConformance({
        target: server.url,
        token: TOKEN,
        contract,
        noFixtures: true,
        seed: 4n,
        generate: { count: 200 },
      });
      const positive = results.find((r) => r.fixture === "generated-positive-createPlant")!;
      expect(positive.outcome).toBe("pass");
      expect(
        positive.steps.flatMap((s) => s.findings.filter((f) => f.severity === "warning").map((f) => f.check)),
      ).toContain("valid.accepted");
    } finally {
      await server.close();
    }
  });
});

describe("a negative counts only when refused for the rule it breaks", () => {
  const refusal = (violations: { location: string; keyword: string }[]) =>
    ({
      ok: false,
      reason: "schema",
      detail: "",
      entry: entry,
      value: undefined,
      exact: new Map(),
      violations: violations.map((v) => ({ ...v, message: "", schemaPath: "#" })),
    }) as unknown as CheckedRequest;
  it.each([
    ["the rule, at the place", [{ location: "body/id", keyword: "type" }], "body/id", "type", true],
    [
      "inside the place",
      [
        { location: "body/id", keyword: "type" },
        { location: "body/id/x", keyword: "type" },
      ],
      "body/id",
      "type",
      true,
    ],
    [
      "within a union: the oneOf above the place refuses, its other branches complain elsewhere",
      [
        { location: "body/id", keyword: "type" },
        { location: "body/kind", keyword: "enum" },
        { location: "body", keyword: "oneOf" },
      ],
      "body/id",
      "type",
      true,
    ],
    [
      "another place too, no union",
      [
        { location: "body/id", keyword: "type" },
        { location: "body/name", keyword: "required" },
      ],
      "body/id",
      "type",
      false,
    ],
    ["another rule at the place", [{ location: "body/id", keyword: "minimum" }], "body/id", "type", false],
    ["a form field unread as its type", [{ location: "body/count", keyword: "style" }], "body/count", "type", true],
    ["no violation", [], "body", "type", false],
  ])("%s: %s", (_name, violations, at, keyword, kept) => {
    expect(refusedAt(refusal(violations), at, keyword)).toBe(kept);
  });
  it("an accepted body is no negative", () => {
    expect(
      refusedAt({ ok: true, entry, value: {}, exact: new Map() } as unknown as CheckedRequest, "body", "type"),
    ).toBe(false);
  });
});

describe("negatives of a union body without its own type (an anyOf of objects, as DigitalOcean's bodies)", () => {
  it("break the type every branch shares, and the contract refuses them", async () => {
    const { compileContract } = await import("../../contract/index.js");
    const branch = (extra: string) => ({
      type: "object",
      required: ["name"],
      properties: { name: { type: "string" }, [extra]: { type: "integer" } },
    });
    const union = compileContract(
      openApi(
        {
          "/droplets": {
            post: {
              operationId: "createDroplet",
              requestBody: {
                required: true,
                content: { "application/json": { schema: { anyOf: [branch("size"), branch("count")] } } },
              },
              responses: { "202": { description: "accepted" } },
            },
          },
        },
        { openapi: "3.0.3" },
      ),
      "union.json",
    );
    const create = union.operation("createDroplet")!;
    const bodies = fc
      .sample(negativeBodies(union, create, union.document, { fresh }), { seed: 3, numRuns: 300 })
      .filter((b) => b !== null);
    expect(bodies.length).toBeGreaterThan(0);
    expect(bodies.some((b) => b.reason?.startsWith("body: type object"))).toBe(true);
    const json = create.requestMediaType("application/json")!;
    for (const b of bodies) {
      const parsed = parseJsonExact(b.text);
      expect(parsed.ok && json.validate(parsed.value).length > 0, b.text).toBe(true);
    }
  });
});

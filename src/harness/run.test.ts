import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { loadContract } from "../contract/index.js";
import { KitError } from "../errors.js";
import { KIT_ROOT } from "../paths.js";
import { createEngine, DEFAULT_HTTP_OPTIONS, startHttpServer } from "../server/index.js";
import { kitContract, TOKEN, withReference } from "../../test/helpers.js";
import { startVariant } from "../../test/variant-server.js";
import type { RunEvent } from "./results.js";
import { runConformance, runOrThrow } from "./run.js";
import { openApi } from "../../test/openapi-doc.js";

const contract = await kitContract();

describe("runConformance", () => {
  it("streams run-started, one case-finished per case in fixture order whatever the concurrency, then run-finished", async () => {
    const orders: string[][] = [];
    for (const concurrency of [1, 8]) {
      const events: RunEvent[] = [];
      await withReference((url) =>
        runConformance({ target: url, token: TOKEN, contract, concurrency }, (e) => events.push(e)),
      );
      expect(events[0]?.type).toBe("run-started");
      expect(events.at(-1)?.type).toBe("run-finished");
      const cases = events.filter((e) => e.type === "case-finished");
      expect(cases.map((e) => (e.type === "case-finished" ? e.index : -1))).toEqual(cases.map((_e, i) => i));
      orders.push(cases.map((e) => (e.type === "case-finished" ? e.result.fixture : "")));
    }
    expect(orders[0]).toEqual(orders[1]);
  });

  it("announces each generated and stateful case as it finishes, not when its phase ends", async () => {
    const multi = await loadContract(`${KIT_ROOT}/test/data/multi-op/plant-store-stateful.yaml`);
    const engine = createEngine(multi, {
      credentials: { tokens: [TOKEN], basic: [] },
      cors: { origins: [] },
      maxItems: 1e4,
    });
    let requests = 0;
    const server = await startHttpServer(
      (request) => {
        requests++;
        return engine.handle(request);
      },
      { ...DEFAULT_HTTP_OPTIONS, port: 0 },
    );
    // How many requests the server had received when each case was announced.
    const seen: { id: string; requests: number }[] = [];
    try {
      await runConformance(
        { target: server.url, token: TOKEN, contract: multi, noFixtures: true, seed: 3n, generate: { count: 3 } },
        (e) => {
          if (e.type === "case-finished") seen.push({ id: e.result.fixture, requests });
        },
      );
    } finally {
      await server.close(10);
    }
    expect(seen.some((s) => s.id.startsWith("generated-stateful-"))).toBe(true);
    // Every case sends requests, so a case announced as it finishes sees more of them than the one before.
    for (const [i, s] of seen.entries()) if (i > 0) expect(s.requests, s.id).toBeGreaterThan(seen[i - 1]!.requests);
  });

  it("replays the same requests from the same seed, against a fresh server each time", async () => {
    const bodies = async (seed: bigint) => {
      const { results } = await withReference((url) =>
        runConformance({ target: url, token: TOKEN, contract, seed, concurrency: 8, evidence: "all" }),
      );
      return results.map((r) => ({
        fixture: r.fixture,
        outcome: r.outcome,
        bodies: r.steps.map((s) => s.request.body),
        statuses: r.steps.map((s) => s.response?.status),
      }));
    };
    const a = await bodies(12345n);
    expect(await bodies(12345n)).toEqual(a);
    expect(await bodies(54321n)).not.toEqual(a);
  });

  it("keeps headers and bodies for steps with a finding, or for every step with evidence: all", async () => {
    // A server that fails on an empty tag and answers everything else as the reference does.
    const variant = await startVariant(contract, (_req, body) =>
      body?.tag === ""
        ? { status: 500, headers: { "content-type": "application/json" }, body: '{"error":500,"message":"no"}' }
        : undefined,
    );
    try {
      const run = (evidence?: "all") =>
        runConformance({ target: variant.url, token: TOKEN, contract, only: ["valid-*"], evidence });
      const lean = (await run()).results.flatMap((r) => r.steps);
      const passing = lean.filter((s) => s.findings.length === 0);
      const failing = lean.filter((s) => s.findings.some((f) => f.severity === "failure"));
      expect(passing.length).toBeGreaterThan(0);
      expect(failing.length).toBeGreaterThan(0);
      for (const s of passing) {
        expect(Object.keys(s.request).sort()).toEqual(["credentials", "method", "url"]);
        expect(Object.keys(s.response ?? {})).toEqual(["status"]);
      }
      for (const s of failing) {
        expect(s.request.body).toContain('"tag":""');
        expect(s.request.headers?.authorization).toBe("Bearer [REDACTED]");
        expect(s.response).toMatchObject({ status: 500, body: '{"error":500,"message":"no"}' });
      }
      const full = (await run("all")).results.flatMap((r) => r.steps);
      expect(full.every((s) => s.request.headers !== undefined && s.response?.body !== undefined)).toBe(true);
    } finally {
      await variant.close();
    }
  });

  it("--only and --skip select fixtures and checks by id, with wildcards", async () => {
    await withReference(async (url) => {
      const only = await runConformance({ target: url, token: TOKEN, contract, only: ["auth-*"] });
      expect(only.results.map((r) => r.fixture).every((f) => f.startsWith("auth-"))).toBe(true);
      const skipped = await runConformance({
        target: url,
        token: TOKEN,
        contract,
        only: ["auth-*"],
        skip: ["auth-missing"],
      });
      expect(skipped.results.map((r) => r.fixture)).not.toContain("auth-missing");
      expect(skipped.summary.total).toBe(only.summary.total - 1);
      const noNotes = await runConformance({
        target: url,
        token: TOKEN,
        contract,
        only: ["auth-missing"],
        skip: ["status.undocumented"],
      });
      expect(noNotes.summary.notes).toBe(0);
      // A run that cannot start resolves with its reason and code, exit 2: the library never throws it.
      const nothing = await runConformance({ target: url, token: TOKEN, contract, only: ["no-such-thing"] });
      expect(nothing.summary).toMatchObject({ exitCode: 2, errorCode: "PS_USAGE", total: 0 });
      expect(nothing.summary.runError).toMatch(/--only "no-such-thing" matches no case id/);
      await expect(runOrThrow({ target: url, token: TOKEN, contract, only: ["no-such-thing"] })).rejects.toThrow(
        KitError,
      );
    });
  });

  it("gives every failure a curl command that reproduces it", async () => {
    const faulty = await startVariant(contract, (_r, body, reference) =>
      body?.name === "" ? { status: 500, headers: {}, body: "" } : reference(),
    );
    try {
      const { results } = await runConformance({
        target: faulty.url,
        token: TOKEN,
        contract,
        only: ["valid-name-empty"],
      });
      const step = results[0]!.steps[0]!;
      expect(step.findings.some((f) => f.check === "status.no-5xx" && f.counts)).toBe(true);
      const { stdout } = await promisify(execFile)("sh", ["-c", `${step.curl} -o /dev/null -w '%{http_code}'`], {
        env: { ...process.env, PLANTSTORE_TOKEN: TOKEN },
      });
      expect(stdout.trim()).toBe("500");
    } finally {
      await faulty.close();
    }
  });

  it("a base path on the target is kept", async () => {
    const seen: string[] = [];
    const server = await startVariant(contract, (r, _b, _reference, as) => {
      seen.push(r.url);
      return as({ ...r, url: r.url.replace(/^\/api\/v1/, "") });
    });
    try {
      const { summary } = await runConformance({
        target: `${server.url}/api/v1/`,
        token: TOKEN,
        contract,
        only: ["valid-basic"],
      });
      expect(summary.exitCode).toBe(0);
      // The pre-flight's request, then the case's: both under the base path.
      expect(seen).toEqual(["/api/v1/plants", "/api/v1/plants"]);
    } finally {
      await server.close();
    }
  });
});

describe("the contract's notes", () => {
  it("are said at the start of a run (console) and kept in the summary (JSON report)", async () => {
    const { createServer } = await import("node:http");
    const { compileContract } = await import("../contract/index.js");
    const { consoleReporter } = await import("./reporters/console.js");
    // `\:` in a class is valid ECMA-262 only without the u flag (DigitalOcean's API has such a pattern).
    const noted = compileContract(
      openApi(
        {
          "/tags/{name}": {
            get: {
              operationId: "getTag",
              parameters: [
                { name: "name", in: "path", required: true, schema: { type: "string", pattern: "^[a-z\\:]+$" } },
              ],
              responses: { "200": { description: "ok" } },
            },
          },
        },
        { openapi: "3.0.3" },
      ),
      "noted.json",
    );
    expect(noted.notes).toHaveLength(1);
    const server = createServer((_q, s) => void s.writeHead(200).end());
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const lines: string[] = [];
    try {
      const port = (server.address() as { port: number }).port;
      const { summary } = await runConformance(
        { target: `http://127.0.0.1:${port}`, contract: noted, noFixtures: true, generate: { count: 2 }, seed: 1n },
        consoleReporter((l) => lines.push(l), { color: false, verbose: false }),
      );
      expect(summary.contractNotes).toEqual(noted.notes);
      const said = lines.find((l) => l.startsWith("contract note: "));
      expect(said).toContain("/paths/~1tags~1{name}/get/parameters/0/schema/pattern");
      expect(said).toContain("only without the u flag");
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe("runConformance as a library", () => {
  it("resolves with exit 2 and the code for a target that cannot be reached, never throws it", async () => {
    const contract = await kitContract();
    const { summary, results } = await runConformance({ target: "http://127.0.0.1:1/", token: TOKEN, contract });
    expect(results).toEqual([]);
    expect(summary).toMatchObject({ exitCode: 2, errorCode: "PS_TARGET_UNREACHABLE", target: "http://127.0.0.1:1" });
    expect(summary.runError).toMatch(/\[PS_TARGET_UNREACHABLE\]$/);
  });

  it("throws a programmer's error as it is: an option of the wrong type", async () => {
    await expect(runConformance({ target: 42 } as unknown as Parameters<typeof runConformance>[0])).rejects.toThrow();
  });
});

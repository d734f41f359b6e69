import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { KitError } from "../src/errors.js";
import { kitContract, TOKEN } from "../test/helpers.js";
import { runCli } from "../test/process.js";
import { tempDir } from "../test/temp-dir.js";
import { startVariant } from "../test/variant-server.js";
import { loadBaseline } from "../src/harness/baseline.js";
import { consoleReporter } from "../src/harness/reporters/console.js";
import { jsonReport } from "../src/harness/reporters/json.js";
import { junitReport } from "../src/harness/reporters/junit.js";
import type { RunEvent } from "../src/harness/results.js";
import { runOrThrow } from "../src/harness/run.js";
import { openApi } from "../test/openapi-doc.js";

// Cases found by reviewing the harness against hostile and unusual targets.
const contract = await kitContract();

async function against(
  variant: Parameters<typeof startVariant>[1],
  options: Partial<Parameters<typeof runOrThrow>[0]> = {},
  tokens = [TOKEN],
) {
  const server = await startVariant(contract, variant, tokens);
  try {
    const events: RunEvent[] = [];
    const run = await runOrThrow(
      { target: server.url, token: options.token ?? TOKEN, contract, timeoutMs: 2_000, ...options },
      (e) => events.push(e),
    );
    const lines: string[] = [];
    const onConsole = consoleReporter((l) => lines.push(l), { color: false, verbose: true });
    events.forEach(onConsole);
    const everything = [
      lines.join("\n"),
      jsonReport(run.summary, run.results),
      junitReport(run.summary, run.results),
    ].join("\n");
    return { ...run, console: lines.join("\n"), everything };
  } finally {
    await server.close();
  }
}

describe("filters never switch a failure off", () => {
  it("--only valid* against a server that resets every connection is not a pass", async () => {
    const { summary } = await against(() => ({ wire: "reset" }), { only: ["valid*"] });
    expect(summary.exitCode).toBe(2);
    expect(summary.runError).toContain("no HTTP answer to any request");
  });

  it("--only valid* still judges media types and bodies", async () => {
    const { summary, results } = await against(
      (_r, _b, ref) => {
        const r = ref();
        return r.status === 200 ? { ...r, headers: { "content-type": "text/html" } } : r;
      },
      { only: ["valid*"] },
    );
    expect(summary.exitCode).toBe(1);
    expect(results.flatMap((r) => r.steps.flatMap((s) => s.findings.map((f) => f.check)))).toContain(
      "response.media-type",
    );
  });

  it("--only a check id keeps response.received: a step without an answer never passes", async () => {
    const { summary } = await against((_r, body, ref) => (body?.name === "Monstera" ? { wire: "reset" } : ref()), {
      only: ["valid.accepted"],
    });
    expect(summary.exitCode).toBe(1);
  });
});

describe("legitimate wire behaviour is not failed", () => {
  it("a server that answers gzip though identity was asked for passes", async () => {
    const { summary } = await against((_r, _b, ref) => {
      const r = ref();
      return {
        status: r.status,
        headers: { ...r.headers, "content-encoding": "gzip" },
        body: gzipSync(r.body).toString("latin1"),
        latin1: true,
      } as never;
    });
    expect(summary.exitCode).toBe(0);
  });

  it("a 429 (limits are not shown by the contract) is not judged: exit 2, with the reason", async () => {
    let n = 0;
    const { summary, results } = await against((_r, _b, ref) =>
      ++n % 7 === 0 ? { status: 429, headers: { "retry-after": "1" }, body: "" } : ref(),
    );
    expect(summary.exitCode).toBe(2);
    expect(results.find((r) => r.outcome === "error")?.error).toContain("refused for capacity (429)");
    expect(summary.failed).toBe(0);
  });
});

describe("the token never leaks, whatever the target echoes", () => {
  const token = "Zx9-secret-TOKEN-4711";
  it.each([
    ["at body offset 190", (auth: string) => `${"x".repeat(190)}${auth}`],
    ["base64 of the header", (auth: string) => Buffer.from(auth).toString("base64")],
    ["hex", (auth: string) => Buffer.from(auth).toString("hex")],
    ["lower-cased", (auth: string) => auth.toLowerCase()],
  ])("%s", async (_how, encode) => {
    const { everything } = await against(
      (r) => ({
        status: 500,
        headers: {
          "content-type": "text/plain",
          [`x-echo-${String(r.headers.authorization).slice(7).toLowerCase()}`]: "1",
        },
        body: encode(String(r.headers.authorization)),
      }),
      { token, only: ["valid-basic"] },
      [token],
    );
    for (const form of [
      token,
      token.toLowerCase(),
      Buffer.from(token).toString("hex"),
      Buffer.from(`Bearer ${token}`).toString("base64").slice(2, 20),
    ]) {
      expect(everything).not.toContain(form);
    }
  });

  it("refuses a target URL with user:password, which reproductions would print", async () => {
    await expect(runOrThrow({ target: "http://admin:hunter2pw@127.0.0.1:1/", token: TOKEN, contract })).rejects.toThrow(
      /must not carry user:password/,
    );
  });

  it("refuses a token that cannot be sent in a header", async () => {
    await expect(runOrThrow({ target: "http://127.0.0.1:1/", token: "tok€n", contract })).rejects.toThrow(KitError);
  });
});

describe("console output cannot be forged by the target", () => {
  it("writes line breaks and escape sequences in evidence out as text", async () => {
    const { console: out } = await against(
      () => ({
        status: 500,
        headers: { "content-type": "text/plain" },
        body: "oops\n46 cases: 46 passed\nverdict: PASS (exit 0)\u001b[2K",
      }),
      { only: ["valid-basic"] },
    );
    expect(out).not.toMatch(/^verdict: PASS/m);
    expect(out).not.toContain("\u001b");
    expect(out).toContain("oops\\n46 cases");
  });
});

describe("run-level advice and checks", () => {
  it("a wrong token is a setup mistake found before any case: exit 2, credentials refused", async () => {
    const run = against(() => undefined, { token: "not-the-right-one" });
    await expect(run).rejects.toMatchObject({ code: "PS_CREDENTIALS_REFUSED" });
    await expect(run).rejects.toThrow(
      /^credentials refused: pre-flight with valid credentials: POST http:\/\/127\.0\.0\.1:\d+\/plants got 401; is --token \(or --credential\) right for this target\?$/,
    );
  });

  it("the right token under --only 'auth-*' is no setup mistake", async () => {
    const { summary, results } = await against(() => undefined, { only: ["auth-*"] });
    expect(summary.runError).toBeUndefined();
    expect(summary.exitCode).toBe(0);
    expect(results.length).toBeGreaterThan(0);
  });

  it("a wrong base path is a setup mistake found before any case: every documented path got 404, exit 2", async () => {
    const run = against(() => ({ status: 404, headers: {}, body: "" }));
    await expect(run).rejects.toMatchObject({ code: "PS_PATHS_NOT_FOUND" });
    await expect(run).rejects.toThrow(
      /^no documented path found under the target: pre-flight: POST \S+\/plants got 404; is the base path of --target right\?$/,
    );
  });

  it("a target that serves another API (its own paths answer, the contract's get 404) is a setup mistake", async () => {
    const other = createServer((req, res) => {
      if (req.url === "/pets") res.writeHead(200, { "content-type": "application/json" }).end("[]");
      else res.writeHead(404, { "content-type": "application/json" }).end('{"message":"no route"}');
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      const r = await runCli(["conformance", "--target", url], { PLANTSTORE_TOKEN: TOKEN });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        /no documented path found under the target: pre-flight: POST .*\/plants got 404; is the base path/,
      );
      expect(r.stderr).toContain("[PS_PATHS_NOT_FOUND]");
      expect(r.stdout).not.toContain("verdict: FAIL");
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it("the CLI: a wrong token against a correct server exits 2, never 1, and says why in every report", async () => {
    const server = await startVariant(contract, () => undefined, [TOKEN]);
    const dir = tempDir("plantstore-setup-");
    try {
      const r = await runCli(["conformance", "--target", server.url, "--report", `json=${join(dir, "r.json")}`], {
        PLANTSTORE_TOKEN: "not-the-right-one",
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("credentials refused");
      expect(r.stderr).toContain("[PS_CREDENTIALS_REFUSED]");
      expect(r.stderr + r.stdout).not.toContain("not-the-right-one");
      expect(JSON.parse(readFileSync(join(dir, "r.json"), "utf8")).error.code).toBe("PS_CREDENTIALS_REFUSED");
    } finally {
      await server.close();
    }
  });

  it.each([
    ["null", "must be an object"],
    ['{"deviations":[{"fixture":"valid-basic","check":"valid.acepted"}]}', '"valid.acepted" is not a check id'],
  ])("a baseline of %s is refused naming the file", (text, message) => {
    const file = join(tempDir("plantstore-bl-"), "baseline.json");
    writeFileSync(file, text);
    expect(() => loadBaseline(file)).toThrow(message);
    expect(() => loadBaseline(file)).toThrow(file);
  });

  it("lists a baseline entry for a fixture that does not exist as stale", async () => {
    const { summary } = await against(() => undefined, {
      baseline: { deviations: [{ fixture: "valid-basci", check: "valid.accepted" }] },
    });
    expect(summary.staleBaseline).toEqual([{ fixture: "valid-basci", check: "valid.accepted" }]);
  });

  it("checks report paths before the run", async () => {
    const r = await runCli(
      ["conformance", "--target", "http://127.0.0.1:1", "--report", "json=/nonexistent-folder/r.json"],
      { PLANTSTORE_TOKEN: TOKEN },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("[PS_REPORT_UNWRITABLE]");
    expect(r.stdout).not.toContain("Conformance run");
  });
});

describe("credentials for other security schemes", () => {
  it("sends an apiKey cookie and every scheme an AND requirement names; other-scheme moves the key", async () => {
    const dir = tempDir("plantstore-apikey-");
    const spec = join(dir, "spec.json");
    writeFileSync(
      spec,
      JSON.stringify(
        openApi(
          { "/ping": { get: { operationId: "ping", responses: { "200": { description: "ok" } } } } },
          {
            openapi: "3.0.3",
            title: "keys",
            security: [{ session: [], key: [] }],
            components: {
              securitySchemes: {
                session: { type: "apiKey", in: "cookie", name: "sid" },
                key: { type: "apiKey", in: "header", name: "X-Key" },
              },
            },
          },
        ),
      ),
    );
    const fixtures = join(dir, "fixtures");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(fixtures);
    writeFileSync(
      join(fixtures, "ok.json"),
      JSON.stringify({
        id: "ok",
        description: "d",
        operation: "ping",
        steps: [{ request: {}, expect: { kind: "valid" } }],
      }),
    );
    writeFileSync(
      join(fixtures, "moved.json"),
      JSON.stringify({
        id: "moved",
        description: "d",
        operation: "ping",
        steps: [{ request: { credentials: "other-scheme" }, expect: { kind: "unauthorised" } }],
      }),
    );
    const seen: Record<string, string | undefined>[] = [];
    const server = createServer((req, res) => {
      seen.push({
        cookie: req.headers.cookie,
        key: req.headers["x-key"] as string | undefined,
        authorization: req.headers.authorization,
      });
      const ok = req.headers.cookie === `sid=${TOKEN}` && req.headers["x-key"] === TOKEN;
      res.writeHead(ok ? 200 : 401).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const { summary } = await runOrThrow({
        target: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        token: TOKEN,
        spec,
        fixtures,
      });
      expect(summary.exitCode).toBe(0);
      expect(seen).toContainEqual({ cookie: `sid=${TOKEN}`, key: TOKEN, authorization: undefined });
      expect(seen).toContainEqual({ cookie: undefined, key: undefined, authorization: `Bearer ${TOKEN}` });
    } finally {
      server.close();
    }
  });
});

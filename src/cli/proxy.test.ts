import { readFileSync } from "node:fs";
import { join } from "node:path";
import { XMLParser } from "fast-xml-parser";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { kitContract } from "../../test/helpers.js";
import { runCli, spawnCli, stopSpawned, type Spawned } from "../../test/process.js";
import { closedUrl, rawUpstream, send } from "../../test/proxy-helpers.js";
import { tempDir } from "../../test/temp-dir.js";
import { json, startVariant } from "../../test/variant-server.js";
import { startReferenceServer, type ReferenceServer } from "../server/index.js";

// A token that must never appear in any output of the proxy: console, JSON report, JUnit report.
const SECRET = "tok-Proxy-Secr3t-5be1d0c9";
const contract = await kitContract();
const headers = (token = SECRET) => ["Authorization", `Bearer ${token}`, "Content-Type", "application/json"];
const dir = tempDir("plantstore-proxy-cli-");
let server: ReferenceServer;
let running: Spawned | undefined;

beforeAll(async () => {
  server = await startReferenceServer({ contract, port: 0, tokens: [SECRET] });
});
afterAll(async () => {
  await server.close(100);
});
afterEach(async () => {
  await stopSpawned(running);
  running = undefined;
});

/** Starts `plantstore proxy` in front of `target` with JSON and JUnit reports; returns its URL and report paths. */
async function startCli(target: string, name: string, ...extra: string[]) {
  const jsonFile = join(dir, `${name}.json`);
  const junitFile = join(dir, `${name}.xml`);
  running = spawnCli([
    "proxy",
    "--target",
    target,
    "--port",
    "0",
    "--report",
    `json=${jsonFile}`,
    "--report",
    `junit=${junitFile}`,
    ...extra,
  ]);
  const [, url] = await running.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  return { url: url!, jsonFile, junitFile, proc: running };
}

const everything = (p: Spawned, ...files: string[]): string =>
  [p.stdout(), p.stderr(), ...files.map((f) => readFileSync(f, "utf8"))].join("\n");
const junit = (file: string) =>
  new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(readFileSync(file, "utf8"));

describe("plantstore proxy", () => {
  it("before the reference server: traffic passes, bad requests are the client's, exit 0", async () => {
    const { url, jsonFile, junitFile, proc } = await startCli(server.url, "reference");
    const valid = await send(`${url}/plants`, { method: "POST", headers: headers(), body: '{"id":1,"name":"Fern"}' });
    expect(valid.status).toBe(200);
    // The token travels in the body too: the client's violation shows the body, masked.
    const invalid = await send(`${url}/plants`, {
      method: "POST",
      headers: headers(),
      body: `{"id":"x","name":"${SECRET}"}`,
    });
    expect(invalid.status).toBe(400);
    expect(
      (await send(`${url}/plants`, { method: "POST", headers: headers("wrong"), body: '{"id":2,"name":"a"}' })).status,
    ).toBe(401);
    await proc.waitFor(/CLIENT VIOLATION request\.body #2 POST \/plants -> 400/);
    proc.child.kill("SIGINT");
    expect(await proc.exited).toBe(0);
    expect(proc.stdout()).toContain("verdict: PASS, no answer broke the contract (exit 0)");
    expect(proc.stdout()).toContain('"authorization: Bearer ${PLANTSTORE_TOKEN}"');
    const report = JSON.parse(readFileSync(jsonFile, "utf8"));
    expect(report.summary).toMatchObject({
      exchanges: 3,
      judged: 3,
      serverViolations: 0,
      exitCode: 0,
      stoppedBy: "SIGINT",
    });
    expect(report.summary.clientViolations).toBeGreaterThan(0);
    expect(report.exchanges.map((e: { status: number }) => e.status)).toEqual([200, 400, 401]);
    expect(report.exchanges[1].findings[0]).toMatchObject({ side: "client", check: "request.body", counts: false });
    const suite = junit(junitFile).testsuites.testsuite;
    expect(Number(suite.failures)).toBe(0);
    expect(everything(proc, jsonFile, junitFile)).toContain("[REDACTED]");
    expect(everything(proc, jsonFile, junitFile)).not.toContain(SECRET);
  });

  it("before a faulty server: the violation in the reports, exit 1, no token anywhere", async () => {
    // Answers 500 to valid creates, echoing the Authorization header back, as a careless server might.
    const faulty = await startVariant(
      contract,
      (r, _b, reference) =>
        reference().status === 200
          ? json(500, { error: 500, message: `failed for ${String(r.headers.authorization)}` })
          : undefined,
      [SECRET],
    );
    try {
      const { url, jsonFile, junitFile, proc } = await startCli(faulty.url, "faulty");
      const answer = await send(`${url}/plants`, { method: "POST", headers: headers(), body: '{"id":3,"name":"a"}' });
      expect(answer.status).toBe(500);
      expect(answer.body.toString()).toContain(SECRET); // passed through unchanged: only outputs are masked
      await proc.waitFor(/SERVER VIOLATION status\.no-5xx #1 POST \/plants -> 500/);
      proc.child.kill("SIGTERM");
      expect(await proc.exited).toBe(1);
      expect(proc.stdout()).toContain("verdict: FAIL, an answer broke the contract (exit 1)");
      const report = JSON.parse(readFileSync(jsonFile, "utf8"));
      expect(report.summary).toMatchObject({ exchanges: 1, serverViolations: 1, exitCode: 1 });
      expect(report.exchanges[0].findings[0]).toMatchObject({ side: "server", check: "status.no-5xx", counts: true });
      expect(report.exchanges[0].findings[0].received).toContain("Bearer [REDACTED]");
      const testcase = junit(junitFile).testsuites.testsuite.testcase;
      expect(testcase.failure.type).toBe("status.no-5xx");
      expect(everything(proc, jsonFile, junitFile)).not.toContain(SECRET);
    } finally {
      await faulty.close();
    }
  });

  it("exits 2 when the upstream was never reachable, and when nothing came through at all", async () => {
    const refused = await startCli(await closedUrl(), "refused");
    const answer = await send(`${refused.url}/plants`, {
      method: "POST",
      headers: headers(),
      body: '{"id":4,"name":"a"}',
    });
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.body.toString())).toMatchObject({ error: 502, code: "PS_UPSTREAM_UNREACHABLE" });
    refused.proc.child.kill("SIGINT");
    expect(await refused.proc.exited).toBe(2);
    expect(refused.proc.stdout()).toContain("[PS_UPSTREAM_UNREACHABLE]");
    expect(junit(refused.junitFile).testsuites.testsuite.testcase.error.type).toBe("not-judged");
    expect(everything(refused.proc, refused.jsonFile, refused.junitFile)).not.toContain(SECRET);

    const idle = await startCli(server.url, "idle");
    idle.proc.child.kill("SIGTERM");
    expect(await idle.proc.exited).toBe(2);
    expect(idle.proc.stdout()).toContain("nothing to judge: no request came through the proxy");
    expect(JSON.parse(readFileSync(idle.jsonFile, "utf8")).summary.exitCode).toBe(2);
  });

  it("stops by itself after --max-exchanges; bad flags exit 2 naming the flag", async () => {
    const { url, jsonFile, proc } = await startCli(server.url, "max", "--max-exchanges", "1");
    await send(`${url}/plants`, { method: "POST", headers: headers(), body: '{"id":5,"name":"a"}' });
    expect(await proc.exited).toBe(0);
    expect(JSON.parse(readFileSync(jsonFile, "utf8")).summary).toMatchObject({
      stoppedBy: "max-exchanges",
      exchanges: 1,
    });

    const bad = await runCli(["proxy", "--target", server.url, "--timeout", "5"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--timeout must be an integer from 100");
    expect(bad.stderr).toContain("[PS_USAGE]");
    const noTarget = await runCli(["proxy"]);
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toContain("--target URL is required");
    const help = await runCli(["proxy", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Exit codes: 0 no answer broke the contract");
  });

  it("under NODE_OPTIONS=--insecure-http-parser, reads leniently what node:http reads so (a folded field)", async () => {
    // undici, the client for small requests, has no lenient mode: the proxy sends every request through node:http.
    const plant = '{"id":5,"name":"a"}';
    const folded = `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-A: a\r\n b\r\nContent-Length: ${plant.length}\r\n\r\n${plant}`;
    const upstream = await rawUpstream((s) => s.write(folded));
    try {
      for (const lenient of [false, true]) {
        running = spawnCli(
          ["proxy", "--target", upstream.url, "--port", "0", "--max-exchanges", "1"],
          lenient ? { NODE_OPTIONS: "--insecure-http-parser" } : {},
        );
        const [, url] = await running.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
        const got = await send(`${url}/plants`, { method: "POST", headers: headers(), body: plant });
        expect(got.status, lenient ? "lenient" : "strict").toBe(lenient ? 200 : 502);
        expect(await running.exited).toBe(lenient ? 0 : 1);
        await stopSpawned(running);
        running = undefined;
      }
      // A trailer value node:http reads under the flag but will not write: a broken answer, and the proxy lives on.
      const trailer =
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-T\r\n\r\n2\r\n{}\r\n0\r\nX-T: a\x01b\r\n\r\n";
      const odd = await rawUpstream((s) => s.write(trailer));
      try {
        const report = join(dir, "trailer.json");
        const args = [
          "proxy",
          "--target",
          odd.url,
          "--port",
          "0",
          "--max-exchanges",
          "2",
          "--report",
          `json=${report}`,
        ];
        running = spawnCli(args, { NODE_OPTIONS: "--insecure-http-parser" });
        const [, url] = await running.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
        await send(`${url}/plants`, { method: "POST", headers: headers(), body: plant });
        await send(`${url}/plants`, { method: "POST", headers: headers(), body: plant });
        // Both exchanges judged and reported: the process lived through the first. (Whether node:http
        // writes such a trailer depends on Node's version: Node 24 does; 20 and 22 break the answer off.)
        expect(await running.exited).toBe(1);
        const { summary } = JSON.parse(readFileSync(report, "utf8"));
        expect(summary).toMatchObject({ exchanges: 2, stoppedBy: "max-exchanges" });
      } finally {
        await odd.close();
      }
    } finally {
      await upstream.close();
    }
  });
});

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it, onTestFinished } from "vitest";
import { KIT_ROOT } from "../src/paths.js";
import { tempDir } from "../test/temp-dir.js";
import { BENCH_TOKEN, spawnAndWait, startTarget } from "./targets.js";

// The Fastify anchor's two logs (bench/fastify-server.ts). The "logger: true" row is not in the
// bench's smoke runs, so this file is what keeps it from rotting. Nothing here times.
const SCRIPT = join(KIT_ROOT, "dist", "bench", "fastify-server.js");

/** A valid create, the same again (409) and one without an id (400): three answers. */
async function threeCreates(url: string): Promise<number[]> {
  const statuses: number[] = [];
  for (const body of ['{"id":1,"name":"Fern"}', '{"id":1,"name":"Fern"}', '{"name":"No id"}']) {
    const res = await fetch(`${url}/plants`, {
      method: "POST",
      headers: { authorization: `Bearer ${BENCH_TOKEN}`, "content-type": "application/json" },
      body,
    });
    await res.arrayBuffer();
    statuses.push(res.status);
  }
  return statuses;
}

/** The log's lines of each message after three creates and a SIGTERM. */
async function logOf(mode: "line" | "default"): Promise<{ msg: string; [k: string]: unknown }[]> {
  const file = join(tempDir("plantstore-fastify-log-"), "fastify.log");
  const { child, url } = await spawnAndWait([SCRIPT, "--log", mode, file]);
  onTestFinished(() => void child.kill("SIGKILL"));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  expect(await threeCreates(url)).toEqual([200, 409, 400]);
  child.kill("SIGTERM");
  expect(await exited).toBe(0);
  const lines = readFileSync(file, "utf8").trimEnd().split("\n");
  return lines.map((l) => JSON.parse(l)).filter((l) => /^(incoming request|request completed)$/.test(l.msg));
}

it("--log line: one line an answer, with its method, URL, status and time, flushed at SIGTERM", async () => {
  // Three lines of about 200 bytes: under the 4 KB buffer, so they are in the file only if flushed.
  const lines = await logOf("line");
  expect(lines.map((l) => [l.msg, l.method, l.url, l.statusCode])).toEqual([
    ["request completed", "POST", "/plants", 200],
    ["request completed", "POST", "/plants", 409],
    ["request completed", "POST", "/plants", 400],
  ]);
  for (const l of lines) expect(typeof l.responseTime).toBe("number");
});

it("--log default: what logger: true writes, an incoming request and a request completed each", async () => {
  // By request id, not by place in the file: pino's default destination is asynchronous, and lines
  // written at exit can land before one still being written (seen once on Node 22).
  const lines = await logOf("default");
  const byRequest = new Map<unknown, string[]>();
  for (const l of lines) byRequest.set(l.reqId, [...(byRequest.get(l.reqId) ?? []), l.msg]);
  expect([...byRequest.keys()].sort()).toEqual(["req-1", "req-2", "req-3"]);
  for (const msgs of byRequest.values()) expect(msgs.sort()).toEqual(["incoming request", "request completed"]);
  const completed = lines.filter((l) => l.msg === "request completed");
  const status = (l: (typeof lines)[number]): [unknown, number] => [
    l.reqId,
    (l.res as { statusCode: number }).statusCode,
  ];
  expect(completed.map(status).sort()).toEqual([
    ["req-1", 200],
    ["req-2", 409],
    ["req-3", 400],
  ]);
});

for (const mode of ["line", "default"] as const)
  it(`the bench counts one "request completed" line an answer with --log ${mode}, and removes the log`, async () => {
    const t = await startTarget({ label: mode, kind: "fastify", logging: true, fastifyLog: mode });
    let lines: number | undefined;
    try {
      expect(await threeCreates(t.url)).toEqual([200, 409, 400]);
    } finally {
      lines = (await t.stop()).logLines;
    }
    // The three, and the bench's first answer (a create of `{}`) made when it started.
    expect(lines).toBe(4);
  });

it("refuses arguments it does not know, and says how it is used", () => {
  const cwd = tempDir("plantstore-fastify-args-");
  for (const args of [
    ["--log", "json", "x.log"],
    ["--log", "line", "x.log", "more"],
    ["--log", "line"],
  ]) {
    const r = spawnSync(process.execPath, [SCRIPT, ...args], { cwd, encoding: "utf8", timeout: 10_000 });
    expect(r.status, args.join(" ")).not.toBe(0);
    expect(r.stderr).toContain(`usage: fastify-server.js [--log line|default FILE], not ${args.join(" ")}`);
  }
});

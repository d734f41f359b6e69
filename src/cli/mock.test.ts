import { execFile, execFileSync } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { runCli, spawnCli, stopSpawned, type Spawned } from "../../test/process.js";
import { tempDir } from "../../test/temp-dir.js";
import { KIT_ROOT } from "../paths.js";

const sh = promisify(execFile);
let running: Spawned | undefined;
afterEach(async () => {
  await stopSpawned(running);
  running = undefined;
});

/** Process ids whose parent is `ppid`. */
const childrenOf = (ppid: number): number[] =>
  execFileSync("ps", ["-eo", "pid=,ppid="], { encoding: "utf8" })
    .split("\n")
    .map((l) => l.trim().split(/\s+/).map(Number))
    .filter(([, parent]) => parent === ppid)
    .map(([pid]) => pid as number);
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
async function gone(pids: number[], ms = 10_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (pids.every((p) => !alive(p))) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

describe("plantstore mock (the real Prism)", () => {
  it("prints a curl command that works, and stops Prism with it on Ctrl-C", async () => {
    running = spawnCli(["mock", "--port", "0"]);
    await running.waitFor(/listening on http:\/\/127\.0\.0\.1:\d+ \(static examples\)/, 60_000);
    const [curl] = await running.waitFor(/^ {2}curl .*$/m);
    const { stdout } = await sh("sh", ["-c", `${curl.trim()} -w '\\n%{http_code}'`]);
    expect(stdout.trim().split("\n").pop()).toBe("200");
    expect(JSON.parse(stdout.trim().split("\n")[0]!)).toEqual({ name: "Boston fern", tag: "fern" });
    const prism = childrenOf(running.child.pid!);
    expect(prism.length).toBe(1);
    running.child.kill("SIGINT");
    expect(await running.exited).toBe(0);
    expect(running.stdout()).toContain("stopped");
    expect(await gone(prism)).toBe(true);
  }, 90_000);

  it("leaves no Prism behind even when it is killed with SIGKILL", async () => {
    running = spawnCli(["mock", "--port", "0", "--dynamic", "--seed", "7"]);
    await running.waitFor(/listening on .* \(dynamic answers, seed 7\)/, 60_000);
    const prism = childrenOf(running.child.pid!);
    expect(prism.length).toBe(1);
    running.child.kill("SIGKILL");
    await running.exited;
    expect(await gone(prism)).toBe(true);
  }, 90_000);

  it("another --spec: the banner and the curl to try are its own; --ready-file; SIGTERM stops Prism too", async () => {
    const { existsSync, readFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const file = join(tempDir("plantstore-mock-ready-"), "mock.url");
    const spec = join(KIT_ROOT, "test", "data", "oai-examples", "v3.0", "petstore.yaml");
    running = spawnCli(["mock", "--port", "0", "--spec", spec, "--ready-file", file]);
    const [, url] = await running.waitFor(
      /^Prism mock of "Swagger Petstore" listening on (http:\/\/127\.0\.0\.1:\d+) \(static examples\)$/m,
      60_000,
    );
    const [curl] = await running.waitFor(/^ {2}curl .*$/m);
    expect(curl.trim()).toBe(`curl -sS ${url}/pets`);
    expect(running.stdout()).not.toContain("/plants");
    const { stdout } = await sh("sh", ["-c", `${curl.trim()} -o /dev/null -w '%{http_code}'`]);
    expect(stdout).toBe("200");
    const until = Date.now() + 10_000;
    while (!existsSync(file) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(readFileSync(file, "utf8")).toBe(`${url}\n`);
    const prism = childrenOf(running.child.pid!);
    running.child.kill("SIGTERM");
    expect(await running.exited).toBe(0);
    expect(running.stdout()).toContain("SIGTERM received: stopping Prism");
    expect(existsSync(file)).toBe(false);
    expect(await gone(prism)).toBe(true);
  }, 90_000);

  it.each([
    [["mock", "--seed", "3"], "--seed only applies with --dynamic"],
    [["mock", "--port", "x"], "--port must be an integer"],
    [["mock", "--spec", "/nonexistent.yaml", "--port", "0"], "[PS_SPEC_UNREADABLE]"],
  ])(
    "%j exits 2: %s",
    async (args, message) => {
      const r = await runCli(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
      // One line, as conformance gives: Prism was never started, so none of its output follows.
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stdout).not.toContain("listening");
    },
    60_000,
  );

  it("fails at once on a busy port, naming it, and never prints a banner for a server it did not start", async () => {
    // Something else answers HTTP on the port, as the probe of an earlier version was fooled by.
    const other = createServer((_req, res) => res.end("not prism"));
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    try {
      const port = (other.address() as AddressInfo).port;
      const r = await runCli(["mock", "--port", String(port)]);
      expect(r.code).toBe(2);
      expect(r.stdout).not.toContain("listening");
      expect(r.stderr.trim().split("\n")).toEqual([
        `plantstore mock: the address to listen on is in use: 127.0.0.1:${port} is taken by another process; choose another --port, or --port 0 for any free port [PS_PORT_IN_USE]`,
      ]);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });
});

describe("plantstore serve --admin --data", () => {
  it("starts with the seed plants and lists them through the admin surface", async () => {
    const { writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const file = join(tempDir("plantstore-seed-"), "plants.json");
    writeFileSync(file, '[{"id":9223372036854775807,"name":"Seeded"}]');
    running = spawnCli(["serve", "--port", "0", "--admin", "--data", file]);
    const [, url] = await running.waitFor(/listening on (http:\/\/\S+)/);
    await running.waitFor(/Started with 1 plant/);
    const res = await fetch(`${url}/__admin/plants`, { headers: { authorization: "Bearer plantstore-dev-token" } });
    expect(await res.text()).toBe('{"count":1,"plants":[{"id":9223372036854775807,"name":"Seeded"}]}');
  });
});

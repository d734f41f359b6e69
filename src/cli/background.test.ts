import { execFile, execFileSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, isProcessAlive, spawnCli, stopSpawned, type Spawned } from "../../test/process.js";
import { tempDir } from "../../test/temp-dir.js";
import { KIT_ROOT } from "../paths.js";

// serve, mock and proxy in the background of a plain bash step: they say when they listen
// (--ready-file), stop on SIGINT and SIGTERM alike, write their reports, and their exit code
// reaches the script. The recipe of docs/flags.md is run as written.

const running: Spawned[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await stopSpawned(s);
});

/** Process ids whose command line names `text` (a temp folder no one else uses). */
const processesNaming = (text: string): number[] =>
  execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.includes(text) && !line.includes("ps -eo"))
    .map((line) => Number(line.trim().split(/\s+/)[0]));

async function waitForFile(file: string, ms = 60_000): Promise<string> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (existsSync(file)) return readFileSync(file, "utf8");
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no ${file} after ${ms} ms`);
}

describe("plantstore in the background of a bash step", () => {
  it("runs the recipe of docs/flags.md as written: ready files, SIGTERM, the proxy's report and verdict", async () => {
    const doc = readFileSync(join(KIT_ROOT, "docs", "flags.md"), "utf8");
    const block = /<!-- recipe:background -->\s*```bash\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(block).toBeDefined();
    const dir = tempDir("plantstore-background-");
    // `plantstore` on the PATH, as an installed package puts it; exec, so the signal reaches Node itself.
    const bin = join(dir, "bin");
    execFileSync("mkdir", [bin]);
    writeFileSync(join(bin, "plantstore"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(bin, "plantstore"), 0o755);
    const { stdout } = await promisify(execFile)("bash", ["-c", block!], {
      cwd: dir,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, NO_COLOR: "1" },
      timeout: 120_000,
    });
    expect(stdout).toContain("listening on http://127.0.0.1:");
    expect(stdout).toContain("SIGTERM received");
    expect(stdout).toContain("proxy verdict: exit 0");
    const junit = readFileSync(join(dir, "proxy.xml"), "utf8");
    expect(junit).toContain("<testsuite");
    // The ready files are gone once stopped, and so are the processes.
    expect(existsSync(join(dir, "serve.url"))).toBe(false);
    expect(existsSync(join(dir, "proxy.url"))).toBe(false);
    expect(processesNaming(dir)).toEqual([]);
  }, 150_000);

  it("proxy: SIGINT as SIGTERM; a failing verdict is the exit code, after the reports", async () => {
    const dir = tempDir("plantstore-background-");
    const serve = spawnCli(["serve", "--port", "0", "--quiet", "--ready-file", join(dir, "serve.url")]);
    running.push(serve);
    const serveUrl = (await waitForFile(join(dir, "serve.url"))).trim();
    // The file holds the URL the banner prints, and nothing else.
    expect((await serve.waitFor(/listening on (\S+)/))[1]).toBe(serveUrl);
    const proxy = spawnCli([
      "proxy",
      "--target",
      serveUrl,
      "--port",
      "0",
      "--fail-on-client",
      "--ready-file",
      join(dir, "proxy.url"),
      "--report",
      `json=${join(dir, "proxy.json")}`,
    ]);
    running.push(proxy);
    const proxyUrl = (await waitForFile(join(dir, "proxy.url"))).trim();
    // A request the contract refuses (no name): a CLIENT violation, counted with --fail-on-client.
    const res = await fetch(`${proxyUrl}/plants`, {
      method: "POST",
      headers: { authorization: "Bearer plantstore-dev-token", "content-type": "application/json" },
      body: "{}",
    });
    await res.arrayBuffer();
    proxy.child.kill("SIGINT");
    expect(await proxy.exited).toBe(1);
    expect(proxy.stdout()).toContain("stopping (SIGINT)");
    const report = JSON.parse(readFileSync(join(dir, "proxy.json"), "utf8"));
    expect(report.summary.exitCode).toBe(1);
    expect(existsSync(join(dir, "proxy.url"))).toBe(false);
    serve.child.kill("SIGTERM");
    expect(await serve.exited).toBe(0);
    expect(existsSync(join(dir, "serve.url"))).toBe(false);
    expect([proxy.child.pid!, serve.child.pid!].filter(isProcessAlive)).toEqual([]);
  }, 120_000);

  it("a ready file left from an earlier run is removed before listening; an unwritable one is refused at once", async () => {
    const dir = tempDir("plantstore-background-");
    const file = join(dir, "serve.url");
    writeFileSync(file, "http://stale.invalid\n");
    const serve = spawnCli(["serve", "--port", "0", "--quiet", "--ready-file", file]);
    running.push(serve);
    await serve.waitFor(/listening on/);
    const url = (await waitForFile(file)).trim();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    serve.child.kill("SIGTERM");
    expect(await serve.exited).toBe(0);

    const refused = spawnCli(["serve", "--port", "0", "--ready-file", join(dir, "no-such-folder", "url")]);
    running.push(refused);
    expect(await refused.exited).toBe(2);
    expect(refused.stderr()).toContain("--ready-file");
    expect(refused.stderr()).toContain("[PS_USAGE]");
  }, 60_000);
});

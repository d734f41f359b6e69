import { spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { spawnCli, stopSpawned, type Spawned } from "../../test/process.js";
import { tempDir } from "../../test/temp-dir.js";
import { KIT_ROOT } from "../paths.js";
import {
  MIN_SEMI_SPACE_MB,
  runInServerThread,
  runsInServerThread,
  semiSpaceFlag,
  YOUNG_GENERATION_MB,
} from "./server-thread.js";

// The server's thread: what it is given, its signal, its output and its exit code. The real CLI in it
// is run here too (npm test builds it first); every test of `serve` that spawns the CLI runs it this way.

const FIXTURE = pathToFileURL(join(KIT_ROOT, "test", "data", "server-thread", "report.mjs"));
const ENTRY = pathToFileURL(join(KIT_ROOT, "dist", "src", "cli", "server-thread-entry.js"));

const open: number[] = [];
let spawned: Spawned | undefined;
afterEach(async () => {
  for (const fd of open.splice(0)) closeSync(fd);
  await stopSpawned(spawned);
});

/** Files for a thread's output and errors, their descriptors, and their text so far. */
function outputFiles(): {
  fds: { out: number; err: number };
  text: () => { out: string; err: string };
  until: (pattern: RegExp) => Promise<void>;
} {
  const dir = tempDir("plantstore-thread-");
  const files = { out: join(dir, "out"), err: join(dir, "err") };
  const fds = { out: openSync(files.out, "w"), err: openSync(files.err, "w") };
  open.push(fds.out, fds.err);
  const text = () => ({ out: readFileSync(files.out, "utf8"), err: readFileSync(files.err, "utf8") });
  return {
    fds,
    text,
    // Shorter than a test's time: a miss shows what came, not a timeout.
    until: async (pattern) => {
      for (let i = 0; i < 300 && !pattern.test(text().out); i++) await new Promise((r) => setTimeout(r, 50));
      expect(text().out).toMatch(pattern);
    },
  };
}

function signalLater(): { signal: Promise<string>; send: (s: string) => void } {
  let send!: (s: string) => void;
  return { signal: new Promise((resolve) => (send = resolve)), send };
}

const NEVER = new Promise<string>(() => {});

describe("the server's thread", () => {
  it.each([
    [["serve"], true],
    [["serve", "--help"], true],
    [["conformance", "--target", "http://127.0.0.1:1"], false],
    [["proxy"], false],
    [["--help"], false],
    [[], false],
  ])("%j runs in a thread of its own: %s", (argv, expected) => {
    expect(runsInServerThread(argv)).toBe(expected);
  });

  it.each([
    [[], `--min-semi-space-size=${MIN_SEMI_SPACE_MB}`],
    [["--max-old-space-size=4096"], `--min-semi-space-size=${MIN_SEMI_SPACE_MB}`],
    [["--max-semi-space-size=4"], `--min-semi-space-size=${MIN_SEMI_SPACE_MB}`],
    [["--min-semi-space-size", "8"], undefined],
    [["--min_semi_space_size=8"], undefined],
  ])("sets the young generation's least size unless Node's command line did (%j)", (argv, flag) => {
    expect(semiSpaceFlag(argv)).toBe(flag);
  });

  it("gives way to a user's --max-semi-space-size: V8 keeps the least size within it", () => {
    // The process's thread under the user's flag, as `node --max-semi-space-size=4 bin.js serve` runs it.
    const module = pathToFileURL(join(KIT_ROOT, "dist", "src", "cli", "server-thread.js")).href;
    const script = join(tempDir("plantstore-thread-"), "run.mjs");
    writeFileSync(
      script,
      [
        `import { runInServerThread } from ${JSON.stringify(module)};`,
        `const signal = new Promise((resolve) => setTimeout(() => resolve("SIGTERM"), 200));`,
        `const entry = new URL(${JSON.stringify(FIXTURE.href)});`,
        `process.exitCode = await runInServerThread(["serve"], { entry, signal });`,
      ].join("\n"),
    );
    const run = spawnSync(process.execPath, ["--max-semi-space-size=4", script], { encoding: "utf8", timeout: 30_000 });
    expect(run.status, run.stderr).toBe(3);
    const report = JSON.parse(run.stdout) as { newSpaceMb: number };
    expect(report.newSpaceMb).toBeGreaterThan(0);
    expect(report.newSpaceMb).toBeLessThanOrEqual(4);
  });

  it("is given the command line and the larger young generation, passes the signal on, and exits with its code", async () => {
    const io = outputFiles();
    const stop = signalLater();
    const code = runInServerThread(["serve", "--port", "0"], { entry: FIXTURE, fds: io.fds, signal: stop.signal });
    try {
      await io.until(/\n$/);
    } finally {
      // Sent even when the test failed: the thread would outlive it.
      stop.send("SIGTERM");
    }
    const { newSpaceMb, ...given } = JSON.parse(io.text().out) as { newSpaceMb: number };
    expect(given).toEqual({ argv: ["serve", "--port", "0"], maxYoungGenerationSizeMb: YOUNG_GENERATION_MB });
    // Made at its least size, which Node's default puts at 2 to 4 MB. (This suite runs without a least
    // size on Node's command line, which would win: see the cases above.)
    expect(semiSpaceFlag(process.execArgv), "node was given its own --min-semi-space-size").toBeDefined();
    expect(newSpaceMb).toBeGreaterThanOrEqual(MIN_SEMI_SPACE_MB);
    expect(await code).toBe(3);
    // What the thread printed itself (not through the kit's output) reaches the process too.
    expect(io.text().err).toBe("stopped by SIGTERM\n");
  });

  it.each([
    ["an Error", "throw", /^plantstore throw: Error: a failure no one caught\n\s+at /],
    ["no Error", "throw-null", /^plantstore throw-null: null\n$/],
  ])("writes a failure the thread did not catch (%s), with the command's name, and exits 2", async (_, argv0, text) => {
    const io = outputFiles();
    const code = await runInServerThread([argv0], { entry: FIXTURE, fds: io.fds, signal: NEVER });
    expect(code).toBe(2);
    expect(io.text().err).toMatch(text);
  });

  it("runs serve: its banner before its ready file; it answers, logs, stops on the signal with its report", async () => {
    const io = outputFiles();
    const stop = signalLater();
    const ready = join(tempDir("plantstore-thread-"), "serve.url");
    const code = runInServerThread(["serve", "--port", "0", "--ready-file", ready], {
      entry: ENTRY,
      fds: io.fds,
      signal: stop.signal,
    });
    // Ids beyond 2^53 told apart exactly: the second is new, the third is the first again.
    const statuses: number[] = [];
    let url = "";
    try {
      // Waited for without giving this thread's event loop a turn: output passed on through it would
      // not be in the file yet. Once the file is there, the whole banner is in the output already
      // (a script may read it then).
      for (let i = 0; i < 2000 && !existsSync(ready); i++)
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
      expect(io.text().out).toMatch(/listening on (\S+)\n[\s\S]*Try it:\n {2}curl .*\n$/);
      url = readFileSync(ready, "utf8").trim();
      for (const id of ["9007199254740993", "9007199254740992", "9007199254740993"]) {
        const answer = await fetch(`${url}/plants`, {
          method: "POST",
          headers: { authorization: "Bearer plantstore-dev-token", "content-type": "application/json" },
          body: `{"id":${id},"name":"Boston fern"}`,
        });
        statuses.push(answer.status);
        await answer.arrayBuffer();
      }
    } finally {
      stop.send("SIGTERM");
    }
    expect(statuses).toEqual([200, 200, 409]);
    expect(await code).toBe(0);
    const lines = io.text().out.trimEnd().split("\n");
    expect(lines.at(-3)).toMatch(/ POST \/plants 409 \d+\.\dms$/);
    expect(lines.slice(-2)).toEqual([`SIGTERM received: stopping ${url}`, "stopped"]);
    expect(existsSync(ready)).toBe(false);
    expect(io.text().err).toBe("");
  });

  it("stops serve once it listens when the signal came during its start-up", async () => {
    const io = outputFiles();
    const code = await runInServerThread(["serve", "--port", "0", "--quiet"], {
      entry: ENTRY,
      fds: io.fds,
      signal: Promise.resolve("SIGINT"),
    });
    expect(code).toBe(0);
    expect(io.text().out).toMatch(/listening on (\S+)\n[\s\S]*SIGINT received: stopping \1\nstopped\n$/);
  });

  it("gives back serve's exit code for a command line it refuses, with the message", async () => {
    const io = outputFiles();
    const code = await runInServerThread(["serve", "--port", "http"], { entry: ENTRY, fds: io.fds, signal: NEVER });
    expect(code).toBe(2);
    expect(io.text().err).toMatch(/^plantstore serve: .*--port.*\[PS_USAGE\]\n$/);
    expect(io.text().out).toBe("");
  });

  it("as a process: the first SIGINT waits for the request in flight, a second stops it at once", async () => {
    spawned = spawnCli(["serve", "--port", "0", "--quiet", "--delay", "20000"]);
    const url = (await spawned.waitFor(/listening on (\S+)/))[1]!;
    // A request the server holds for 20 s: sent in full (its bytes in the kernel), then a moment for
    // the server to read it.
    const answer = new Promise<string>((resolve) => {
      const req = request(`${url}/plants`, { method: "POST" }, (res) => resolve(String(res.statusCode)));
      req.on("error", () => resolve("no answer"));
      req.end("{}");
    });
    await new Promise((r) => setTimeout(r, 500));
    spawned.child.kill("SIGINT");
    await spawned.waitFor(/SIGINT received: stopping/);
    expect(spawned.child.exitCode).toBe(null);
    spawned.child.kill("SIGINT");
    await spawned.exited;
    expect(spawned.child.signalCode).toBe("SIGINT");
    expect(await answer).toBe("no answer");
  });
});

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/temp-dir.js";
import { KIT_ROOT } from "../paths.js";
import { runInServerThread, runsInServerThread, YOUNG_GENERATION_MB } from "./server-thread.js";

// The server's thread: what it is given, its signal, its output and its exit code. The real CLI in it
// is run here too (npm test builds it first); every test of `serve` that spawns the CLI runs it this way.

const FIXTURE = pathToFileURL(join(KIT_ROOT, "test", "data", "server-thread", "report.mjs"));
const ENTRY = pathToFileURL(join(KIT_ROOT, "dist", "src", "cli", "server-thread-entry.js"));

/** A thread's output and error text as it comes, and a stop signal to send when the test says. */
function captured(): {
  out: (b: Uint8Array) => void;
  err: (b: Uint8Array) => void;
  text: () => { out: string; err: string };
  until: (pattern: RegExp) => Promise<void>;
} {
  let out = "";
  let err = "";
  return {
    out: (b) => void (out += Buffer.from(b).toString("utf8")),
    err: (b) => void (err += Buffer.from(b).toString("utf8")),
    text: () => ({ out, err }),
    until: async (pattern) => {
      for (let i = 0; i < 600 && !pattern.test(out); i++) await new Promise((r) => setTimeout(r, 50));
      expect(out).toMatch(pattern);
    },
  };
}

function signalLater(): { signal: Promise<string>; send: (s: string) => void } {
  let send!: (s: string) => void;
  return { signal: new Promise((resolve) => (send = resolve)), send };
}

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

  it("is given the command line and the larger young generation, passes the signal on, and exits with its code", async () => {
    const io = captured();
    const stop = signalLater();
    const code = runInServerThread(["serve", "--port", "0"], { entry: FIXTURE, ...io, signal: stop.signal });
    await io.until(/\n$/);
    expect(JSON.parse(io.text().out)).toEqual({
      argv: ["serve", "--port", "0"],
      maxYoungGenerationSizeMb: YOUNG_GENERATION_MB,
    });
    stop.send("SIGTERM");
    expect(await code).toBe(3);
    expect(io.text().err).toBe("stopped by SIGTERM\n");
  });

  it("writes a failure the thread did not catch, with the command's name, and exits 2", async () => {
    const io = captured();
    const code = await runInServerThread(["throw"], { entry: FIXTURE, ...io, signal: new Promise(() => {}) });
    expect(code).toBe(2);
    expect(io.text().err).toMatch(/^plantstore throw: Error: a failure no one caught\n\s+at /);
  });

  it("runs serve: it answers, logs, stops on the signal with its report, and removes its ready file", async () => {
    const io = captured();
    const stop = signalLater();
    const ready = join(tempDir("plantstore-thread-"), "serve.url");
    const code = runInServerThread(["serve", "--port", "0", "--ready-file", ready], {
      entry: ENTRY,
      ...io,
      signal: stop.signal,
    });
    // Ids beyond 2^53 told apart exactly: the second is new, the third is the first again.
    const statuses: number[] = [];
    let url = "";
    try {
      await io.until(/Try it:/);
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
      // Stopped even when the test failed: the thread would outlive it.
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
    const io = captured();
    const code = await runInServerThread(["serve", "--port", "0", "--quiet"], {
      entry: ENTRY,
      ...io,
      signal: Promise.resolve("SIGINT"),
    });
    expect(code).toBe(0);
    expect(io.text().out).toMatch(/listening on (\S+)\n[\s\S]*SIGINT received: stopping \1\nstopped\n$/);
  });

  it("gives back serve's exit code for a command line it refuses, with the message", async () => {
    const io = captured();
    const code = await runInServerThread(["serve", "--port", "http"], {
      entry: ENTRY,
      ...io,
      signal: new Promise(() => {}),
    });
    expect(code).toBe(2);
    expect(io.text().err).toMatch(/^plantstore serve: .*--port.*\[PS_USAGE\]\n$/);
    expect(io.text().out).toBe("");
  });
});

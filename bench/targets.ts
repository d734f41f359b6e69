import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, createReadStream, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { startPrism } from "../src/mock/prism.js";
import { DEFAULT_SPEC, KIT_ROOT } from "../src/paths.js";

export const BENCH_TOKEN = "bench-token-0123456789";
/**
 * reference: `plantstore serve`; engine: `plantstore serve --spec SPEC`; both `--quiet` unless
 * `logging`, then with their default per-request log lines, stdout to a file as
 * `plantstore serve > serve.log` writes it. bare: bench/bare-server.ts; bare-store:
 * bench/bare-store-server.ts; fastify: bench/fastify-server.ts, the Plant Store's create as a team
 * would write it with Fastify (the anchor), with a request log in a file when `logging`; prism: the
 * real Prism mock of SPEC.
 */
export type TargetKind = "reference" | "engine" | "bare" | "bare-store" | "fastify" | "prism";

export interface TargetSpec {
  /** How the report names it. */
  readonly label: string;
  readonly kind: TargetKind;
  /** serve with its default per-request log lines (else --quiet); Fastify with a log (fastifyLog). */
  readonly logging?: boolean;
  /** Fastify's log when `logging`: one line an answer (default), or `logger: true`'s lines. */
  readonly fastifyLog?: "line" | "default";
  /** The document of the engine and Prism (default spec/openapi.yaml, the Plant Store). */
  readonly spec?: string;
  /** Seed data, as `serve --spec --data` reads it: the engine and the bare store start with it. */
  readonly data?: string;
  /** The CLI of serve: another build's bin.js (--compare), else this kit's. */
  readonly bin?: string;
}

export interface Target {
  readonly label: string;
  readonly url: string;
  readonly pid: number;
  /** From spawn to the first HTTP answer. */
  readonly startupMs: number;
  /**
   * Stops it (SIGTERM, as a user does) and says how many request lines its log holds once the process
   * has exited: a `logging` target's, 0 for the others.
   */
  stop(): Promise<{ readonly logLines: number }>;
}

/** Resident set size of a process, from /proc (Linux). */
export function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m === null ? NaN : Number(m[1]) * 1024;
}

/** CPU time a process has used so far, user + system, in ms (Linux /proc, clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8")
    .replace(/^.*\) /, "")
    .split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function firstAnswer(url: string, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/plants`, {
        method: "POST",
        headers: { authorization: `Bearer ${BENCH_TOKEN}`, "content-type": "application/json" },
        body: "{}",
      });
      await res.arrayBuffer();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  throw new Error(`no answer from ${url}`);
}

/** The lines of a file that pass `test`, read a chunk at a time: a log may outgrow a string. */
async function countLines(file: string, test: (line: string) => boolean): Promise<number> {
  let n = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) if (test(line)) n++;
  return n;
}

/** Waits for a started target's first answer; one that never answers is stopped before the error. */
async function answeredOrStopped(url: string, stop: () => Promise<void>, ms = 30_000): Promise<void> {
  try {
    await firstAnswer(url, Date.now() + ms);
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Starts `node args...` and resolves once it prints its URL; its output is read only until then. One
 * that prints none within a minute is killed, and the error says what it printed.
 */
export function spawnAndWait(args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    const fail = (why: string): void => reject(new Error(`${args.join(" ")} ${why}: ${out}`));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail("printed no URL in 60 s");
    }, 60_000);
    const read = (c: Buffer): void => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m === null) return;
      clearTimeout(timer);
      // From now on the output is drained unread: the bench spends no time on it.
      child.stdout?.off("data", read);
      child.stdout?.resume();
      resolve({ child, url: m[1] as string });
    };
    child.stdout?.on("data", read);
    child.once("exit", (code) => {
      clearTimeout(timer);
      fail(`exited with ${code}`);
    });
  });
}

/**
 * Starts `plantstore serve ...` with its stdout to a file (as `> serve.log` does) and resolves with
 * the URL it writes to its --ready-file; the folder of both goes when the process is stopped.
 */
async function spawnCli(
  bin: string,
  args: string[],
): Promise<{ child: ChildProcess; url: string; log: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "plantstore-bench-target-"));
  const log = join(dir, "serve.log");
  const ready = join(dir, "ready");
  const fd = openSync(log, "w");
  const child = spawn(process.execPath, [bin, ...args, "--ready-file", ready], { stdio: ["ignore", fd, "inherit"] });
  closeSync(fd); // the child has its own

  // Only while it starts: once it listens its exit is a stop's, and its log may be large by then.
  let failed: (code: number | null) => void = () => undefined;
  const exited = new Promise<never>((_, reject) => {
    failed = (code) => reject(new Error(`${args.join(" ")} exited with ${code}: ${readFileSync(log, "utf8")}`));
    child.once("exit", failed);
  });
  try {
    const url = await Promise.race([waitForFile(ready, Date.now() + 60_000), exited]);
    return { child, url: url.trim(), log, dir };
  } catch (error) {
    // Never ready: not left running behind the bench, nor its folder (its log is in the error).
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    throw error;
  } finally {
    child.off("exit", failed);
  }
}

/** The text of a file once it exists (polled every 5 ms). */
export async function waitForFile(file: string, deadline: number): Promise<string> {
  while (Date.now() < deadline) {
    if (existsSync(file)) return readFileSync(file, "utf8");
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`no ${file}`);
}

const stopChild = (child: ChildProcess) => (): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
    setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
  });

const BIN = join(KIT_ROOT, "dist", "src", "cli", "bin.js");
const REQUEST_LINE = / \d+ \d+\.\dms$/;

/** The command line of a `plantstore serve` target. */
function serveArgs(t: TargetSpec): string[] {
  const data = t.data === undefined ? [] : ["--data", t.data];
  return [
    "serve",
    ...(t.kind === "engine" ? ["--spec", t.spec ?? DEFAULT_SPEC, ...data] : []),
    ...["--port", "0", "--token", BENCH_TOKEN, "--max-plants", "100000000"],
    ...(t.logging === true ? [] : ["--quiet"]),
  ];
}

const noLog = (stop: () => Promise<void>) => async (): Promise<{ logLines: number }> => {
  await stop();
  return { logLines: 0 };
};

/** A stop that counts the lines of the target's log that pass `test` once it has exited, then removes its folder. */
const countedStop =
  (stop: () => Promise<void>, log: string, dir: string, test: (line: string) => boolean) =>
  async (): Promise<{ logLines: number }> => {
    await stop();
    try {
      return { logLines: await countLines(log, test) };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

/**
 * Starts a target as its users start it, in its own process, and times it to its first answer. A
 * kind alone is that target with its defaults, named by its kind.
 */
export async function startTarget(target: TargetSpec | TargetKind): Promise<Target> {
  const t = typeof target === "string" ? { label: target, kind: target } : target;
  const started = performance.now();
  const label = t.label;
  if (t.kind === "prism") {
    const prism = await startPrism({ port: 0, ...(t.spec === undefined ? {} : { spec: t.spec }) });
    await answeredOrStopped(prism.url, prism.stop, 60_000);
    const pid = prism.child.pid as number;
    return { label, url: prism.url, pid, startupMs: performance.now() - started, stop: noLog(prism.stop) };
  }
  if (t.kind === "fastify" && t.logging === true) return startLoggingFastify(t, started);
  if (t.kind === "bare" || t.kind === "bare-store" || t.kind === "fastify") {
    const script = join(KIT_ROOT, "dist", "bench", `${t.kind}-server.js`);
    const { child, url } = await spawnAndWait([script, ...(t.kind === "bare-store" && t.data ? [t.data] : [])]);
    await answeredOrStopped(url, stopChild(child));
    const pid = child.pid as number;
    return { label, url, pid, startupMs: performance.now() - started, stop: noLog(stopChild(child)) };
  }
  const { child, url, log, dir } = await spawnCli(t.bin ?? BIN, serveArgs(t));
  const stop = stopChild(child);
  await answeredOrStopped(url, async () => {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    label,
    url,
    pid: child.pid as number,
    startupMs: performance.now() - started,
    stop: countedStop(stop, log, dir, (l) => REQUEST_LINE.test(l)),
  };
}

/** The Fastify anchor with its request log in a file of its own folder, counted and removed at its stop. */
async function startLoggingFastify(t: TargetSpec, started: number): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), "plantstore-bench-target-"));
  const log = join(dir, "fastify.log");
  const script = join(KIT_ROOT, "dist", "bench", "fastify-server.js");
  let stop = async (): Promise<void> => undefined;
  try {
    const { child, url } = await spawnAndWait([script, "--log", t.fastifyLog ?? "line", log]);
    stop = stopChild(child);
    await firstAnswer(url, Date.now() + 30_000);
    // One "request completed" line an answer in either mode (the default adds "incoming request").
    const counted = countedStop(stop, log, dir, (l) => l.includes('"msg":"request completed"'));
    const pid = child.pid as number;
    return { label: t.label, url, pid, startupMs: performance.now() - started, stop: counted };
  } catch (error) {
    await stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** `plantstore proxy` in its own process in front of `upstream`, as a CI job runs it. */
export async function startProxyTarget(upstream: string): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const bin = join(KIT_ROOT, "dist", "src", "cli", "bin.js");
  const { child, url } = await spawnAndWait([bin, "proxy", "--target", upstream, "--port", "0"]);
  await answeredOrStopped(url, stopChild(child));
  return { url, pid: child.pid as number, stop: stopChild(child) };
}

/**
 * A hand-written proxy in its own process in front of `upstream`: "bare", the node:http
 * pass-through (bench/bare-proxy.ts); "validating", the same with Ajv judging each create
 * (bench/validating-proxy.ts), the anchor for `plantstore proxy`.
 */
export async function startBareProxy(
  upstream: string,
  kind: "bare" | "validating" = "bare",
): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const script = join(KIT_ROOT, "dist", "bench", kind === "bare" ? "bare-proxy.js" : "validating-proxy.js");
  const { child, url } = await spawnAndWait([script, upstream]);
  await answeredOrStopped(url, stopChild(child));
  return { url, pid: child.pid as number, stop: stopChild(child) };
}

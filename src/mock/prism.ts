import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { KitError } from "../errors.js";
import { DEFAULT_SPEC, KIT_ROOT } from "../paths.js";

export interface PrismOptions {
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  readonly spec?: string;
  /** Generate responses from the schemas instead of serving the examples. */
  readonly dynamic?: boolean;
  /** Makes dynamic generation reproducible. */
  readonly seed?: string;
  /** Receives Prism's own output, line by line. */
  readonly onOutput?: (line: string) => void;
  /** How long Prism may take to answer its first request. */
  readonly readyTimeoutMs?: number;
}

export interface RunningPrism {
  readonly url: string;
  readonly child: ChildProcess;
  /** Resolves with Prism's exit code when it exits for any reason. */
  readonly exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after a grace period; resolves when the process is gone. */
  stop(): Promise<void>;
}

// Beside this file once built; from the TypeScript sources (tests) the built copy in dist/ is used.
const BESIDE = fileURLToPath(new URL("./prism-child.js", import.meta.url));
const CHILD = existsSync(BESIDE) ? BESIDE : join(KIT_ROOT, "dist", "src", "mock", "prism-child.js");

/** The installed @stoplight/prism-cli entry point (run with this Node, never downloaded). */
export function prismEntry(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("@stoplight/prism-cli/package.json")), "dist", "index.js");
}

/** Starts the real Prism mock of a spec as a child process and waits until it answers HTTP. */
export async function startPrism(options: PrismOptions = {}): Promise<RunningPrism> {
  const host = options.host ?? "127.0.0.1";
  const port = options.port === undefined || options.port === 0 ? await freePort(host) : options.port;
  const args = [CHILD, prismEntry(), "mock", options.spec ?? DEFAULT_SPEC, "-h", host, "-p", String(port)];
  if (options.dynamic) args.push("-d");
  if (options.seed !== undefined) args.push("--seed", options.seed);
  // stdin stays an open pipe: prism-child exits when it closes, so Prism dies with this process.
  const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "pipe"] });
  const tail: string[] = [];
  const onLine = (line: string): void => {
    tail.push(line);
    if (tail.length > 20) tail.shift();
    options.onOutput?.(line);
  };
  for (const stream of [child.stdout, child.stderr]) {
    let buffered = "";
    stream?.setEncoding("utf8");
    stream?.on("data", (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const l of lines) if (l.trim() !== "") onLine(l);
    });
  }
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const hostForUrl = host.includes(":") ? `[${host}]` : host;
  const url = `http://${hostForUrl}:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(killer);
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  let gone = false;
  void exited.then(() => (gone = true));
  while (!gone) {
    if (await answers(url)) return { url, child, exited, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new KitError("PS_CHILD_FAILED", `Prism did not answer on ${url} within ${options.readyTimeoutMs ?? 60_000} ms:\n${tail.join("\n")}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new KitError("PS_CHILD_FAILED", `Prism exited with code ${child.exitCode} before answering:\n${tail.join("\n")}`);
}

async function answers(url: string): Promise<boolean> {
  try {
    // A CORS preflight: Prism answers it without logging an error for the probe.
    const res = await fetch(`${url}/`, { method: "OPTIONS", headers: { origin: "http://probe.invalid", "access-control-request-method": "GET" }, signal: AbortSignal.timeout(1_000) });
    await res.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

/** A port that is free now; Prism cannot be given port 0 and tell us what it got. */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, host, () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

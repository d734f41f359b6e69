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

/** Starts the real Prism mock of a spec as a child process and waits until Prism says it listens. */
export async function startPrism(options: PrismOptions = {}): Promise<RunningPrism> {
  const host = options.host ?? "127.0.0.1";
  const port =
    options.port === undefined || options.port === 0 ? await freePort(host) : await ensureFree(host, options.port);
  const args = [CHILD, prismEntry(), "mock", options.spec ?? DEFAULT_SPEC, "-h", host, "-p", String(port)];
  if (options.dynamic) args.push("-d");
  if (options.seed !== undefined) args.push("--seed", options.seed);
  // stdin stays an open pipe: prism-child exits when it closes, so Prism dies with this process.
  const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "pipe"] });
  const hostForUrl = host.includes(":") ? `[${host}]` : host;
  const url = `http://${hostForUrl}:${port}`;
  const tail: string[] = [];
  let listening: () => void = () => undefined;
  // Only Prism's own word counts: an HTTP probe could be answered by another process on the port.
  const saidListening = new Promise<void>((resolve) => (listening = resolve));
  const onLine = (line: string): void => {
    tail.push(line);
    if (tail.length > 20) tail.shift();
    const plain = line.replace(ANSI, "").trim();
    if (plain.includes("Prism is listening on ") && plain.endsWith(`:${port}`)) listening();
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
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(killer);
  };

  const readyMs = options.readyTimeoutMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    saidListening.then(() => "listening" as const),
    exited.then(() => "exited" as const),
    new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), readyMs))),
  ]);
  clearTimeout(timer);
  if (outcome === "listening") return { url, child, exited, stop };
  await stop();
  if (tail.some((l) => l.includes("EADDRINUSE"))) throw portInUse(host, port);
  if (outcome === "timeout")
    throw new KitError("PS_CHILD_FAILED", `Prism did not start on ${url} within ${readyMs} ms:\n${tail.join("\n")}`);
  throw new KitError(
    "PS_CHILD_FAILED",
    `Prism exited with code ${child.exitCode} before listening:\n${tail.join("\n")}`,
  );
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

function portInUse(host: string, port: number): KitError {
  return new KitError(
    "PS_PORT_IN_USE",
    `${host}:${port} is taken by another process; choose another --port, or --port 0 for any free port`,
  );
}

/** Fails at once, before Prism starts, when something already listens on the port. */
function ensureFree(host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", (error: NodeJS.ErrnoException) =>
      reject(error.code === "EADDRINUSE" ? portInUse(host, port) : error),
    );
    s.listen(port, host, () => s.close(() => resolve(port)));
  });
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

import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { join } from "node:path";
import { KIT_ROOT } from "../src/paths.js";

export const BIN = join(KIT_ROOT, "dist", "src", "cli", "bin.js");

export interface Spawned {
  readonly child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout match of `pattern`, or rejects after `ms`. */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

/** Where a CLI is run from: the kit's own build by default, or an installed copy (the package test). */
export interface CliPlace {
  readonly bin: string;
  readonly cwd: string;
}

/** Runs the built CLI (npm test builds it first) as a real process. */
export function spawnCli(
  args: string[],
  env: Record<string, string> = {},
  place: CliPlace = { bin: BIN, cwd: KIT_ROOT },
): Spawned {
  const child = spawn(process.execPath, [place.bin, ...args], {
    env: { ...process.env, NO_COLOR: "1", ...env },
    cwd: place.cwd,
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
  child.stderr.on("data", (c: Buffer) => (err += c.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, ms = 15_000) {
      return new Promise((resolve, reject) => {
        const started = Date.now();
        const poll = setInterval(() => {
          const m = out.match(pattern);
          if (m) {
            clearInterval(poll);
            resolve(m);
          } else if (Date.now() - started > ms || child.exitCode !== null) {
            clearInterval(poll);
            reject(new Error(`no ${pattern} in output:\n${out}\n${err}`));
          }
        }, 20);
      });
    },
  };
}

/** Runs the CLI to completion. */
export async function runCli(
  args: string[],
  env: Record<string, string> = {},
  place?: CliPlace,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = spawnCli(args, env, place);
  const code = await p.exited;
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

/** Kills a spawned CLI that is still running (afterEach), and waits until it is gone. */
export async function stopSpawned(spawned: Spawned | undefined): Promise<void> {
  if (spawned === undefined || spawned.child.exitCode !== null || spawned.child.signalCode !== null) return;
  spawned.child.kill("SIGKILL");
  await spawned.exited;
}

/** Whether a process with this id exists (EPERM: it does, but belongs to someone else). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

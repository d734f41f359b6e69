import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { DOC_PORTS, withPorts, type RunnableBlock } from "./docs-blocks.js";

// Running one runnable shell block of the docs (test/docs-blocks.ts) as a CI step would: bash -eo
// pipefail, a new user's environment, its own process group, a hang guard, and a check that it left
// no process behind. Used by test/docs-commands.test.ts (blocks run from a clone) and
// test/package.test.ts (blocks marked `installed`, run from a project that installed the packed kit).

// A hang guard, not a speed target: a busy CI machine runs the Prism block in 15 to 30 s.
export const BLOCK_LIMIT_MS = 90_000;

/** A port nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Whether any process of the group is still alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface BlockRun {
  readonly code: number | null;
  readonly output: string;
  readonly timedOut: boolean;
  readonly leftBehind: boolean;
}

/** Runs one block in its own process group, so a hang or a process left behind can be seen and ended. */
export async function runBlock(script: string, cwd: string): Promise<BlockRun> {
  // As a new user's shell: none of the kit's variables set beforehand.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PLANTSTORE_")));
  const child = spawn("bash", ["-eo", "pipefail", "-c", script], {
    cwd,
    env: { ...env, NO_COLOR: "1" },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output += c.toString("utf8")));
  child.stderr.on("data", (c: Buffer) => (output += c.toString("utf8")));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    if (groupAlive(child.pid!)) process.kill(-child.pid!, "SIGKILL");
  }, BLOCK_LIMIT_MS);
  const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
  clearTimeout(timer);
  // A process the block started and did not stop keeps the group alive; give a stopping one a moment.
  let leftBehind = false;
  for (let i = 0; i < 20 && groupAlive(child.pid!); i++) await new Promise((r) => setTimeout(r, 100));
  if (groupAlive(child.pid!)) {
    leftBehind = true;
    process.kill(-child.pid!, "SIGKILL");
  }
  return { code, output, timedOut, leftBehind };
}

/**
 * Runs a block in a folder with the docs' ports replaced (4010 by the reference server the caller
 * started, the others by free ports where the block starts a server itself), and says what went
 * wrong, or undefined when it exited as its marker says, in time, leaving nothing running.
 */
export async function blockProblem(
  block: RunnableBlock,
  folder: string,
  referencePort: number,
): Promise<string | undefined> {
  const free: Record<number, number> = {};
  for (const port of DOC_PORTS) free[port] = await freePort();
  const result = await runBlock(withPorts(block.script, { 4010: referencePort }, free), folder);
  const where = `${block.file}:${block.line}`;
  if (result.timedOut) return `${where} still ran after ${BLOCK_LIMIT_MS} ms:\n${result.output}`;
  if (result.code !== block.exit) return `${where} exited ${result.code}, not ${block.exit}:\n${result.output}`;
  if (result.leftBehind) return `${where} left a process running:\n${result.output}`;
  return undefined;
}

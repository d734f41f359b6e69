import { spawn } from "node:child_process";
import { readFileSync, realpathSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { DOC_PORTS, outputProblem, withPorts, type RunnableBlock } from "./docs-blocks.js";

// Running one runnable shell block of the docs (test/docs-blocks.ts) as a CI step would: bash -eo
// pipefail, a new user's environment (or the one the blocks before it left, as in one terminal), its
// own process group, a hang guard, and a check that it left no process behind. Used by
// test/docs-commands.test.ts (every block, in order, in one clone) and test/package.test.ts (blocks
// marked `installed`, run from a project that installed the packed kit).

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
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A new user's environment: none of the kit's variables set beforehand. */
export function freshEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("PLANTSTORE_")) env[k] = v;
  return { ...env, NO_COLOR: "1" };
}

export interface BlockRun {
  readonly code: number | null;
  /** stdout and stderr as one stream, in the order they were written (as a terminal shows them). */
  readonly output: string;
  readonly timedOut: boolean;
  readonly leftBehind: boolean;
  /** The exported variables when the block ended, when asked for (`envFile`). */
  readonly env?: Record<string, string>;
}

/** Variables bash sets itself: not carried from one block to the next. */
const SHELL_OWN = new Set(["_", "SHLVL", "PWD", "OLDPWD"]);

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Runs one block in its own process group, so a hang or a process left behind can be seen and ended.
 * With `envFile` (a path outside `cwd`), the variables exported when the block ends, however it ends
 * but on the hang guard, are read back (an EXIT trap writes them there), for the next block.
 */
export async function runBlock(
  script: string,
  cwd: string,
  env: Readonly<Record<string, string>> = freshEnv(),
  envFile?: string,
): Promise<BlockRun> {
  // The trap goes on the script's first line, so that bash's "line N" in an error is the block's own.
  const body = envFile === undefined ? script : `trap 'env -0 > ${shellQuote(envFile)}' EXIT; ${script}`;
  // stderr into stdout's pipe before the script starts: one stream, in the order it was written.
  const child = spawn("bash", ["-c", 'exec 2>&1; exec bash -eo pipefail -c "$1"', "bash", body], {
    cwd,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "ignore"],
  });
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output += c.toString("utf8")));
  const closed = new Promise<void>((resolve) => child.on("close", () => resolve()));
  let exited = false;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = !exited;
    if (groupAlive(child.pid!)) process.kill(-child.pid!, "SIGKILL");
  }, BLOCK_LIMIT_MS);
  const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
  exited = true;
  // A process the block started and did not stop keeps the group alive; give a stopping one a moment.
  let leftBehind = false;
  for (let i = 0; i < 20 && groupAlive(child.pid!); i++) await new Promise((r) => setTimeout(r, 100));
  if (groupAlive(child.pid!)) {
    leftBehind = true;
    process.kill(-child.pid!, "SIGKILL");
  }
  // The output is whole once every process that held the pipe is gone.
  await closed;
  clearTimeout(timer);
  let after: Record<string, string> | undefined;
  if (envFile !== undefined) {
    try {
      after = {};
      for (const entry of readFileSync(envFile, "utf8").split("\0")) {
        const eq = entry.indexOf("=");
        if (eq > 0 && !SHELL_OWN.has(entry.slice(0, eq))) after[entry.slice(0, eq)] = entry.slice(eq + 1);
      }
      rmSync(envFile);
    } catch {
      after = undefined; // killed by the hang guard: no trap ran
    }
  }
  return { code, output, timedOut, leftBehind, ...(after === undefined ? {} : { env: after }) };
}

/** What a docs run gives each block: its ports, and the environment to start from. */
export interface BlockContext {
  /** The port each of the docs' ports (4010, 4011, 4012) stands for in this run. */
  readonly ports: Readonly<Partial<Record<number, number>>>;
  readonly env?: Readonly<Record<string, string>>;
  /** Where the block's exported variables are written when it ends (outside the folder). */
  readonly envFile?: string;
}

export interface BlockResult {
  /** What went wrong, or undefined when the block ran as its marker and its shown output say. */
  readonly problem: string | undefined;
  readonly run: BlockRun;
}

/**
 * Runs a block in a folder with the docs' ports replaced, and says what went wrong: another exit
 * code than its marker's, the hang guard, a process left behind, or output other than the output
 * the docs show for it (normalised: test/docs-blocks.ts), with the folder written as the docs write it.
 */
export async function runDocBlock(block: RunnableBlock, folder: string, context: BlockContext): Promise<BlockResult> {
  const run = await runBlock(withPorts(block.script, context.ports), folder, context.env, context.envFile);
  const where = `${block.file}:${block.line}`;
  const said = (problem: string): BlockResult => ({ problem: `${where} ${problem}`, run });
  if (run.timedOut) return said(`still ran after ${BLOCK_LIMIT_MS} ms:\n${run.output}`);
  if (run.code !== block.exit) return said(`exited ${run.code}, not ${block.exit}:\n${run.output}`);
  if (run.leftBehind) return said(`left a process running:\n${run.output}`);
  if (block.output !== undefined) {
    const differs = outputProblem(block.output.text, run.output, [folder, realpathSync(folder)]);
    if (differs !== undefined)
      return said(`printed other than the output shown at ${block.file}:${block.output.line}: ${differs}`);
  }
  return { problem: undefined, run };
}

/**
 * One block alone (test/package.test.ts): 4010 is the reference server the caller started, 4011 and
 * 4012 free ports; a fresh environment. What went wrong, or undefined.
 */
export async function blockProblem(
  block: RunnableBlock,
  folder: string,
  referencePort: number,
): Promise<string | undefined> {
  const ports: Record<number, number> = { 4010: referencePort };
  for (const port of DOC_PORTS) ports[port] ??= await freePort();
  return (await runDocBlock(block, folder, { ports })).problem;
}

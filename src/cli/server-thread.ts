import { isatty } from "node:tty";
import { setFlagsFromString } from "node:v8";
import { Worker } from "node:worker_threads";
import { fdWriter } from "./fd-write.js";
import { STOP_SIGNALS } from "./io.js";

/** The commands run in a thread of their own: the mock server, which allocates a little per answer. */
const SERVER_COMMANDS: ReadonlySet<string> = new Set(["serve"]);

/**
 * The largest young generation of the server's thread, in MB (V8 keeps objects that die young
 * there): with Node's default, a smaller one, a busy server collected it about eight times as often,
 * about 0.6 µs an answer more (docs/performance.md, issue 33's sixth part). Node takes this size only
 * when a heap is made, so the server gets a heap of its own. `--max-semi-space-size`, given to Node,
 * still wins over it.
 */
export const YOUNG_GENERATION_MB = 128;

/**
 * The least size of each half of that young generation, in MB (V8's `--min-semi-space-size`). Its
 * largest size alone is not enough: at the first collection after a wait, V8 finds that little was
 * allocated per millisecond since the last one (under 1,000 bytes, counting the wait) and shrinks
 * the young generation to its least size, 2 to 4 MB by default (`Heap::ShouldResizeNewSpace` in
 * V8's heap.cc); it grows back only as objects survive, so the first seconds of load after a wait of
 * about a minute collected several hundred times. 16 and 32 did as well beside a few targets, but
 * in the whole bench 16 fell to 0.80 of bare node:http in the rounds after the longest waits, where
 * 64 stayed at 0.90 or more; 16 holds less memory (docs/performance.md, issue 33's ninth part).
 * Setting a V8 flag once Node runs costs the thread's start about 20 ms, whatever its value.
 */
export const MIN_SEMI_SPACE_MB = 64;

/**
 * The V8 flag the server's heap is made with, or undefined where the user gave the least size on
 * Node's command line (Node refuses it in NODE_OPTIONS). A user's `--max-semi-space-size` needs no
 * test: V8 makes the least size no larger than the largest.
 */
export function semiSpaceFlag(execArgv: readonly string[]): string | undefined {
  if (execArgv.some((a) => /^--min[-_]semi[-_]space[-_]size(=|$)/.test(a))) return undefined;
  return `--min-semi-space-size=${MIN_SEMI_SPACE_MB}`;
}

/** What the server's thread is given: the command line, and what it cannot see of the process. */
export interface ThreadData {
  readonly argv: readonly string[];
  readonly isTty: boolean;
  /** The descriptors it writes its output and its errors to. */
  readonly fds: { readonly out: number; readonly err: number };
}

/** Whether the command line starts a server that runs in a thread of its own. */
export function runsInServerThread(argv: readonly string[]): boolean {
  return argv[0] !== undefined && SERVER_COMMANDS.has(argv[0]);
}

/** How a server thread is run: everything is the process's own unless a test passes its own. */
export interface ServerThreadOptions {
  /** The thread's module: the CLI's (server-thread-entry.js) by default. */
  readonly entry?: URL;
  /** Resolves with the signal that stops the server: the process's first SIGINT or SIGTERM by default. */
  readonly signal?: Promise<string>;
  /** Where the command's output and errors go: the process's stdout and stderr (1 and 2) by default. */
  readonly fds?: ThreadData["fds"];
}

/**
 * Runs a CLI command in a worker thread with a larger young generation; resolves with its exit code.
 * The process stays one process (one pid for a CI step to stop, one exit code): the thread writes
 * its output to the process's descriptors itself, this one passes the stop signals on, writes what
 * else the thread prints (a warning from Node) and gives back the code the command returned. A
 * failure the command did not catch is written with its stack and exits 2, as every other error of
 * the CLI.
 */
export function runInServerThread(argv: readonly string[], options: ServerThreadOptions = {}): Promise<number> {
  const fds = options.fds ?? { out: 1, err: 2 };
  const out = fdWriter(fds.out);
  const err = fdWriter(fds.err);
  // Read by V8 when it makes the thread's heap. Flags are the process's: a later worker thread of this
  // process would get it too (the kit makes none).
  const flag = semiSpaceFlag(process.execArgv);
  if (flag !== undefined) setFlagsFromString(flag);
  const worker = new Worker(options.entry ?? new URL("./server-thread-entry.js", import.meta.url), {
    workerData: { argv, isTty: isatty(fds.out), fds } satisfies ThreadData,
    stdout: true,
    stderr: true,
    resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
  });
  worker.stdout.on("data", out);
  worker.stderr.on("data", err);
  // Listening from the start: a signal during start-up stops the server once it listens, as in one thread.
  const forward = (signal: string): void => worker.postMessage(signal);
  if (options.signal !== undefined) void options.signal.then(forward);
  else for (const s of STOP_SIGNALS) process.once(s, forward);
  return new Promise((resolve) => {
    let failed = false;
    worker.on("error", (error: unknown) => {
      failed = true;
      const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
      err(`plantstore ${argv[0]}: ${text}\n`);
    });
    worker.on("exit", (code) => {
      for (const s of STOP_SIGNALS) process.off(s, forward);
      resolve(failed ? 2 : code);
    });
  });
}

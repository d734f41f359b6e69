import { parentPort, workerData } from "node:worker_threads";
import type { Io } from "./io.js";
import { main } from "./main.js";
import type { ThreadData } from "./server-thread.js";

// The server's thread (server-thread.ts): the CLI as in a process of its own, its output passed to
// the process's, its stop signal a message from the process's thread.
const { argv, isTty } = workerData as ThreadData;
const port = parentPort!;
let signal: Promise<string> | undefined;
const io: Io = {
  out: (line) => void process.stdout.write(line + "\n"),
  outBytes: (bytes) => void process.stdout.write(bytes),
  err: (line) => void process.stderr.write(line + "\n"),
  env: process.env,
  // Read only by commands that wait on a signal: a listener keeps the thread alive.
  get signal() {
    signal ??= new Promise((resolve) => port.once("message", (s: string) => resolve(s)));
    return signal;
  },
  isTty,
};
process.exitCode = await main([...argv], io);
// A command that failed after it began to wait on a signal leaves its listener: the thread ends anyway.
port.unref();

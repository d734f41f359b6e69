import { parentPort, workerData } from "node:worker_threads";
import { fdWriter } from "./fd-write.js";
import type { Io } from "./io.js";
import { main } from "./main.js";
import type { ThreadData } from "./server-thread.js";

// The server's thread (server-thread.ts): the CLI as in a process of its own. Its output is written
// to the process's descriptors from here, in full before the next step (not passed to the process's
// thread, which would deliver it later: after the ready file, errors before earlier lines); its stop
// signal is a message from the process's thread.
const { argv, isTty, fds } = workerData as ThreadData;
const port = parentPort!;
const out = fdWriter(fds.out);
const err = fdWriter(fds.err);
let signal: Promise<string> | undefined;
const io: Io = {
  out: (line) => out(line + "\n"),
  outBytes: out,
  err: (line) => err(line + "\n"),
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

/** What a command may touch of its process: injected so tests can run commands in-process. */
export interface Io {
  readonly out: (line: string) => void;
  /** Writes bytes to the output as they are (a batch of log lines, each ended by its newline). */
  readonly outBytes?: (bytes: Uint8Array) => void;
  readonly err: (line: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Resolves on the first SIGINT or SIGTERM. */
  readonly signal: Promise<string>;
  readonly isTty: boolean;
}

/** The signals that stop a server command, its requests in flight finished first. */
export const STOP_SIGNALS = ["SIGINT", "SIGTERM"] as const;

export function processIo(): Io {
  let signal: Promise<string> | undefined;
  const out = passTo(process.stdout);
  const err = passTo(process.stderr);
  return {
    out: (line) => out(line + "\n"),
    outBytes: out,
    err: (line) => err(line + "\n"),
    env: process.env,
    // Listeners go in only for the commands that wait on a signal; for the others Ctrl-C keeps its
    // default meaning (stop now), since a listener would take that away.
    get signal() {
      signal ??= new Promise((resolve) => {
        for (const s of STOP_SIGNALS) process.once(s, () => resolve(s));
      });
      return signal;
    },
    isTty: process.stdout.isTTY === true,
  };
}

/**
 * Writes to one of the process's own streams. A reader that goes away (`serve | head -1`) is no
 * reason to stop: what it would have read is dropped, and the command goes on (a server keeps
 * serving, a run still writes its reports).
 */
function passTo(stream: NodeJS.WriteStream): (chunk: string | Uint8Array) => void {
  let closed = false;
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    closed = true;
  });
  return (chunk) => void (closed || stream.write(chunk));
}

/** Waits for a signal, then runs the shutdown and reports it. */
export async function onShutdown(
  signalled: Promise<string>,
  io: Io,
  what: string,
  stop: () => Promise<void>,
): Promise<void> {
  const signal = await signalled;
  io.out(`${signal} received: stopping ${what}`);
  await stop();
  io.out("stopped");
}

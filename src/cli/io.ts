/** What a command may touch of its process: injected so tests can run commands in-process. */
export interface Io {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Resolves on the first SIGINT or SIGTERM. */
  readonly signal: Promise<string>;
  readonly isTty: boolean;
}

export function processIo(): Io {
  let signal: Promise<string> | undefined;
  return {
    out: (line) => process.stdout.write(line + "\n"),
    err: (line) => process.stderr.write(line + "\n"),
    env: process.env,
    // Listeners go in only for the commands that wait on a signal; for the others Ctrl-C keeps its
    // default meaning (stop now), since a listener would take that away.
    get signal() {
      signal ??= new Promise((resolve) => {
        for (const s of ["SIGINT", "SIGTERM"] as const) process.once(s, () => resolve(s));
      });
      return signal;
    },
    isTty: process.stdout.isTTY === true,
  };
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

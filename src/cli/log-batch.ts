/** Per-request log lines of a server command, written in batches. */
export interface LogBatch {
  /** Takes one line; it is written with the others of this turn of the event loop. */
  readonly line: (line: string) => void;
  /** Writes the lines taken so far, now. */
  readonly flush: () => void;
  /** Writes the lines taken so far and stops watching for the process's exit. */
  readonly close: () => void;
}

/** Lines held at most before they are written at once, whatever the turn. */
const MAX_LINES = 256;

/**
 * Batches lines to `out` (which ends each call with a newline): the lines of one turn of the event
 * loop go out as one call after it, joined by newlines, so the bytes are those of one call per line.
 * Node writes to a file or a pipe synchronously on Linux, and one write per request cost the server
 * a tenth or more of its requests per second (docs/performance.md). Lines still pending when the
 * process exits are written then.
 */
export function logBatch(out: (text: string) => void): LogBatch {
  let pending: string[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  let watching = false;
  const flush = (): void => {
    if (scheduled !== undefined) clearImmediate(scheduled);
    scheduled = undefined;
    if (pending.length === 0) return;
    const lines = pending;
    pending = [];
    out(lines.join("\n"));
  };
  return {
    line: (line) => {
      // Watched from the first line only: a server that never logged leaves no listener behind.
      if (!watching) process.on("exit", flush);
      watching = true;
      pending.push(line);
      if (pending.length >= MAX_LINES) flush();
      else scheduled ??= setImmediate(flush);
    },
    flush,
    close: () => {
      flush();
      process.off("exit", flush);
      watching = false;
    },
  };
}

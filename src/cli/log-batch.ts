/** Per-request log lines of a server command, written in batches. */
export interface LogBatch {
  /** Takes one line; it is written with the others of its batch, at most FLUSH_MS later. */
  readonly line: (line: string) => void;
  /** Writes the lines taken so far, now. */
  readonly flush: () => void;
  /** Writes the lines taken so far and stops watching for the process's exit. */
  readonly close: () => void;
}

/** How long a line may wait for others, in milliseconds: too short for a person at a terminal to see. */
export const FLUSH_MS = 20;
/** Lines held at most before they are written at once, however busy the server. */
const MAX_LINES = 256;

/**
 * Batches lines to `out` (which ends each call with a newline): the lines of up to FLUSH_MS go out as
 * one call, joined by newlines, so the bytes are those of one call per line. Node writes to a file or
 * a pipe synchronously on Linux: one write per request cost the server about a tenth of its CPU time
 * (docs/performance.md). Lines still pending when the process exits are written then.
 */
export function logBatch(out: (text: string) => void): LogBatch {
  let pending: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  let watching = false;
  const flush = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
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
      // Unref'd: a batch never keeps the process alive; the exit listener writes it.
      else timer ??= setTimeout(flush, FLUSH_MS).unref();
    },
    flush,
    close: () => {
      flush();
      process.off("exit", flush);
      watching = false;
    },
  };
}

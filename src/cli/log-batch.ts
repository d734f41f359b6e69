import {
  REQUEST_LINE_PARTS,
  requestLine,
  requestLineRoom,
  writeRequestLine,
  type RequestLineParts,
  type RequestLog,
} from "../server/request-line.js";

/** Per-request log lines of a server command, written in batches. */
export interface LogBatch {
  /**
   * Takes one line; it is written with the others of its batch, at most FLUSH_MS later. It also
   * takes a server's line as its parts (request-line.ts), written into the batch as the same bytes.
   */
  readonly line: RequestLog;
  /** Writes the lines taken so far, now. */
  readonly flush: () => void;
  /** Writes the lines taken so far and stops watching for the process's exit. */
  readonly close: () => void;
}

/** How long a line may wait for others, in milliseconds: too short for a person at a terminal to see. */
export const FLUSH_MS = 20;
/** Lines held at most before they are written at once, however busy the server. */
export const MAX_LINES = 1024;

/** Room for the bytes of a batch: MAX_LINES lines of 128 bytes (a longer line flushes sooner). */
const BATCH_BYTES = 128 * 1024;

/**
 * Batches lines to `out` (which ends each call with a newline): the lines of up to FLUSH_MS go out as
 * one call, joined by newlines, so the bytes are those of one call per line. Node writes to a file or
 * a pipe synchronously on Linux: one write per request cost the server about a tenth of its CPU time
 * (docs/performance.md). Each line is written into the batch's buffer as it comes (its bytes copied
 * while they are at hand, rather than kept as a string and joined later: about 0.5 µs a line less
 * in a busy server); a server's line given as its parts is written there without being made as
 * text first. Lines still pending when the process exits are written then.
 */
export function logBatch(out: (text: string) => void, outBytes?: (bytes: Uint8Array) => void): LogBatch {
  const buffer = Buffer.allocUnsafe(BATCH_BYTES);
  let used = 0;
  let lines = 0;
  let timer: NodeJS.Timeout | undefined;
  let watching = false;
  const flush = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (lines === 0) return;
    // As bytes where the output takes them (a copy: the buffer is written again), else as text
    // without the last newline (`out` ends the text with one).
    const bytes = used;
    used = 0;
    lines = 0;
    if (outBytes !== undefined) outBytes(Buffer.from(buffer.subarray(0, bytes)));
    else out(buffer.toString("utf8", 0, bytes - 1));
  };
  /** Makes room for `room` bytes: writes the batch first where they may not fit. */
  const reserve = (room: number): void => {
    // Watched from the first line only: a server that never logged leaves no listener behind.
    if (!watching) process.on("exit", flush);
    watching = true;
    if (used + room > BATCH_BYTES) flush();
  };
  /** Counts a line just written into the buffer. */
  const added = (): void => {
    if (++lines >= MAX_LINES) flush();
    // Unref'd: a batch never keeps the process alive; the exit listener writes it.
    else timer ??= setTimeout(flush, FLUSH_MS).unref();
  };
  const line = (text: string): void => {
    // A UTF-16 unit is at most 3 bytes of UTF-8: a line that may not fit goes after the others.
    const room = text.length * 3 + 1;
    reserve(room);
    if (room > BATCH_BYTES) return out(text);
    used += buffer.write(text, used, "utf8");
    buffer[used++] = 0x0a;
    added();
  };
  const parts: RequestLineParts = (method, path, status, tenths, reason) => {
    const room = requestLineRoom(method, path, reason);
    if (room > BATCH_BYTES) return line(requestLine(method, path, status, tenths, reason));
    reserve(room);
    used = writeRequestLine(buffer, used, method, path, status, tenths, reason);
    added();
  };
  return {
    line: Object.assign(line, { [REQUEST_LINE_PARTS]: parts }),
    flush,
    close: () => {
      flush();
      process.off("exit", flush);
      watching = false;
    },
  };
}

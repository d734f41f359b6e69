// The server's log line of a request, as text for any log and as bytes for a log that batches them.
import { isoNow } from "../clock.js";

/**
 * A log may offer, beside taking lines as text, to take a line's parts under this key and write
 * its bytes itself (`writeRequestLine`): the same bytes, without making the text first. The command
 * line's batch does (src/cli/log-batch.ts), about 0.2 µs a request less (docs/performance.md).
 */
export const REQUEST_LINE_PARTS: unique symbol = Symbol("plantstore.requestLineParts");

/** A line's parts: the method, the request's path, the status, the time taken in tenths of a ms, and why, if said. */
export type RequestLineParts = (
  method: string,
  path: string,
  status: number,
  tenths: number,
  reason: string | undefined,
) => void;

/** A log of the server: one line per request; some also take a line's parts. */
export type RequestLog = ((line: string) => void) & { readonly [REQUEST_LINE_PARTS]?: RequestLineParts };

/** The line: `2026-11-27T15:32:48.123Z POST /plants 201 0.4ms`, then ` (why)` where the answer says why. */
export function requestLine(
  method: string,
  path: string,
  status: number,
  tenths: number,
  reason: string | undefined,
): string {
  const why = reason === undefined ? "" : ` (${reason})`;
  return `${isoNow()} ${method} ${path} ${status} ${Math.floor(tenths / 10)}.${tenths % 10}ms${why}`;
}

/**
 * The bytes `writeRequestLine` may write for these parts at most, its newline included. A UTF-16
 * unit is at most 3 bytes of UTF-8; the date (24 bytes, 27 past the year 9999), the separators and
 * the numbers (the text of a double is at most 25 characters) take fewer than 128.
 */
export function requestLineRoom(method: string, path: string, reason: string | undefined): number {
  return 128 + 3 * (method.length + path.length + (reason === undefined ? 0 : reason.length));
}

/**
 * Writes the UTF-8 bytes of `requestLine` and a newline into `buffer` at `at`, and returns where
 * they end; the caller leaves room for `requestLineRoom`. Text is copied by character while it is
 * ASCII (the common case), the rest by the buffer's UTF-8 encoder; numbers by digit. A status or time
 * that is not a safe non-negative integer is written by the text's own rules.
 */
export function writeRequestLine(
  buffer: Buffer,
  at: number,
  method: string,
  path: string,
  status: number,
  tenths: number,
  reason: string | undefined,
): number {
  let end = writeDate(buffer, at);
  buffer[end++] = 0x20;
  end = writeText(buffer, end, method);
  buffer[end++] = 0x20;
  end = writeText(buffer, end, path);
  buffer[end++] = 0x20;
  end = writeNumber(buffer, end, status);
  buffer[end++] = 0x20;
  if (Number.isSafeInteger(tenths) && tenths >= 0) {
    end = writeNumber(buffer, end, Math.floor(tenths / 10));
    buffer[end++] = 0x2e;
    buffer[end++] = 0x30 + (tenths % 10);
  } else end = writeText(buffer, end, `${Math.floor(tenths / 10)}.${tenths % 10}`);
  buffer[end++] = 0x6d; // m
  buffer[end++] = 0x73; // s
  if (reason !== undefined) {
    buffer[end++] = 0x20;
    buffer[end++] = 0x28;
    end = writeText(buffer, end, reason);
    buffer[end++] = 0x29;
  }
  buffer[end++] = 0x0a;
  return end;
}

/** The date of `isoNow` in ASCII, its length, and the millisecond it is of: made again when the clock moves. */
const dateBytes = new Uint8Array(32);
let dateLength = 0;
let dateMs = -1;

/** Writes the date as `isoNow` gives it (24 characters; 27 past the year 9999), from the bytes of its millisecond. */
function writeDate(buffer: Buffer, at: number): number {
  const now = Date.now();
  if (now !== dateMs) {
    const text = new Date(now).toISOString();
    dateMs = now;
    dateLength = text.length;
    for (let i = 0; i < dateLength; i++) dateBytes[i] = text.charCodeAt(i);
  }
  for (let i = 0; i < dateLength; i++) buffer[at + i] = dateBytes[i]!;
  return at + dateLength;
}

/** Writes text as UTF-8: by character while it is ASCII, then the rest by the encoder. */
function writeText(buffer: Buffer, at: number, text: string): number {
  let end = at;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return end + buffer.write(text.slice(i), end, "utf8");
    buffer[end++] = c;
  }
  return end;
}

/** Writes a number's decimal digits: by digit when it is a safe non-negative integer, else its text. */
function writeNumber(buffer: Buffer, at: number, n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) return writeText(buffer, at, String(n));
  if (n < 10) {
    buffer[at] = 0x30 + n;
    return at + 1;
  }
  let digits = 2;
  for (let rest = n; rest >= 100; rest = Math.floor(rest / 10)) digits++;
  let rest = n;
  for (let i = at + digits - 1; i >= at; i--) {
    buffer[i] = 0x30 + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return at + digits;
}

// The wall clock as ISO 8601 text for per-request records (a server's log line, a proxied exchange's
// start), made once per millisecond: under load many requests share one, and `toISOString` costs
// about half a microsecond each time.

let isoMs = Number.NaN;
let iso = "";

/** `new Date().toISOString()`, the same text for every call within one millisecond. */
export function isoNow(): string {
  const now = Date.now();
  if (now !== isoMs) {
    isoMs = now;
    iso = new Date(now).toISOString();
  }
  return iso;
}

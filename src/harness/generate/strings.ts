import fc from "fast-check";
import type { Schema } from "../../contract/index.js";

/**
 * Strings built to their schema's rules: lengths, formats and patterns are met by construction,
 * never by filtering (a fast-check filter whose predicate keeps failing loops forever, and the loop
 * is synchronous: no time limit can stop it). Lengths count code points, as JSON Schema does
 * (2020-12 section 6.3.1; Ajv counts a surrogate pair as one character and a lone surrogate as one).
 *
 * fast-check's `fc.string({ unit: "binary" })` costs about 1.3 s the first time it is built in a
 * process (it tabulates all of Unicode); the characters here are drawn from integer ranges instead,
 * which costs nothing up front.
 */

/**
 * Which characters a string may hold: `json` anything, lone surrogates included (JSON carries them as
 * \u escapes); `text` well-formed Unicode only (URLs and form fields are UTF-8: RFC 3986 section 2.5,
 * and a lone surrogate cannot be encoded); `header` visible ASCII (RFC 9110 section 5.5: other octets
 * are obsolete or not field content, and edge whitespace is stripped).
 */
export type Charset = "json" | "text" | "header";

const char = (min: number, max: number): fc.Arbitrary<string> =>
  fc.integer({ min, max }).map((c) => String.fromCodePoint(c));

const VISIBLE = char(0x21, 0x7e);
/**
 * The character a long string repeats: a letter or digit. Odd characters are tried in the varied
 * head; a run of tens of thousands of `{` tests only a parser's worst case (Prism stalls over a
 * minute on one), not the contract.
 */
const FILL = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
const TEXT_UNITS = fc.oneof(
  { arbitrary: char(0x20, 0x7e), weight: 8 },
  { arbitrary: fc.oneof(char(0xa0, 0xd7ff), char(0xe000, 0xfffd)), weight: 3 },
  { arbitrary: char(0x10000, 0x10ffff), weight: 1 },
  { arbitrary: fc.oneof(char(0x00, 0x1f), char(0x300, 0x36f), char(0x200b, 0x200f)), weight: 1 },
);
const LONE_SURROGATE = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const JSON_UNITS = fc.oneof({ arbitrary: TEXT_UNITS, weight: 12 }, { arbitrary: LONE_SURROGATE, weight: 1 });

/** One character (code point, or a lone surrogate where the charset allows it). */
export function unitArb(charset: Charset): fc.Arbitrary<string> {
  return charset === "header" ? VISIBLE : charset === "text" ? TEXT_UNITS : JSON_UNITS;
}

const isHigh = (s: string): boolean => s.length === 1 && s.charCodeAt(0) >= 0xd800 && s.charCodeAt(0) <= 0xdbff;
const isLow = (s: string): boolean => s.length === 1 && s.charCodeAt(0) >= 0xdc00 && s.charCodeAt(0) <= 0xdfff;

/** Joins characters; a lone high surrogate followed by a lone low one would pair into one character, so the low one becomes `x`. */
export function joinUnits(units: readonly string[]): string {
  let out = "";
  for (let i = 0; i < units.length; i++) out += i > 0 && isHigh(units[i - 1]!) && isLow(units[i]!) ? "x" : units[i];
  return out;
}

/** The number of characters as JSON Schema counts them (code points; a lone surrogate is one). */
export function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    n++;
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return n;
}

/** Lengths above this are drawn as a varied head and a repeated tail, so a minLength of 10^6 stays cheap. */
const VARIED = 64;
/** Where the schema allows 1,000 characters or more, now and then a very long string (at most this). */
const LONG = 70_000;

/** Strings of `minLength` to `maxLength` characters, by construction. */
export function lengthArb(minLength: number, maxLength: number, charset: Charset): fc.Arbitrary<string> {
  const unit = unitArb(charset);
  const hi = Math.min(maxLength, minLength + 40);
  const built =
    hi <= VARIED
      ? fc.array(unit, { minLength, maxLength: hi }).map(joinUnits)
      : fc
          .tuple(fc.integer({ min: minLength, max: hi }), fc.array(unit, { maxLength: VARIED }), FILL)
          .map(([n, head, fill]) => {
            const h = head.slice(0, n);
            return joinUnits(h) + fill.repeat(n - h.length);
          });
  if (maxLength < 1_000) return built;
  const long = fc
    .tuple(fc.integer({ min: Math.max(minLength, 1_000), max: Math.max(minLength, Math.min(maxLength, LONG)) }), FILL)
    .map(([n, c]) => c.repeat(n));
  return fc.oneof({ arbitrary: built, weight: 6 }, { arbitrary: long, weight: 1 });
}

const DAY = fc.date({
  min: new Date("1900-01-01T00:00:00Z"),
  max: new Date("2999-12-31T23:59:59Z"),
  noInvalidDate: true,
});
const label = (min: number, max: number): fc.Arbitrary<string> =>
  fc.array(char(0x61, 0x7a), { minLength: min, maxLength: max }).map((a) => a.join(""));

/** RFC 3986 unreserved characters, for path segments and query values that need no escaping. */
const UNRESERVED = fc.oneof(char(0x61, 0x7a), char(0x30, 0x39), fc.constantFrom("-", ".", "_", "~"));
let urls: fc.Arbitrary<string> | undefined;
/**
 * http(s) URLs: a domain, path segments and now and then a query. Built here because fast-check's
 * webUrl costs seconds the first time one is drawn in a process (measured 3 to 6 s on this machine).
 */
function urlArb(): fc.Arbitrary<string> {
  urls ??= fc
    .tuple(
      fc.constantFrom("http", "https"),
      fc.domain(),
      fc.array(
        fc.array(UNRESERVED, { maxLength: 10 }).map((a) => a.join("")),
        { maxLength: 4 },
      ),
      fc.option(
        fc.array(UNRESERVED, { minLength: 1, maxLength: 10 }).map((a) => a.join("")),
        { nil: undefined },
      ),
    )
    .map(
      ([scheme, host, path, query]) =>
        `${scheme}://${host}/${path.join("/")}${query === undefined ? "" : `?q=${query}`}`,
    );
  return urls;
}

/** Strings of the formats ajv-formats checks, or undefined for others (which Ajv does not check). */
export function formatArb(format: unknown): fc.Arbitrary<string> | undefined {
  switch (format) {
    case "uuid":
      return fc.uuid();
    case "date":
      return DAY.map((d) => d.toISOString().slice(0, 10));
    case "date-time":
      return DAY.map((d) => d.toISOString());
    case "time":
      return DAY.map((d) => d.toISOString().slice(11));
    case "email":
      return fc.emailAddress();
    case "uri":
    case "url":
      return urlArb();
    case "uri-reference":
      return fc.oneof(
        urlArb(),
        label(1, 12).map((p) => `/${p}`),
      );
    case "ipv4":
      return fc.ipV4();
    case "ipv6":
      return fc.ipV6();
    case "hostname":
      return fc.domain();
    case "byte":
      return fc.uint8Array({ maxLength: 48 }).map((b) => Buffer.from(b).toString("base64"));
    case "duration":
      return fc.nat({ max: 999 }).map((n) => `P${n}D`);
    default:
      return undefined;
  }
}

/**
 * A string of the format within the lengths, built to fit: the variable part (an email's local part,
 * a URI's path, a hostname's labels, base64's bytes) is sized from the lengths. Undefined when the
 * format has no variable part to size; then drawn values are kept and the contract judges them.
 */
function sizedFormat(format: unknown, min: number, max: number): fc.Arbitrary<string> | undefined {
  const n = fc.integer({ min, max: Math.min(max, min + 40) });
  switch (format) {
    case "email": // local@ex.com: the local part is 1 to 64 characters (RFC 5321 section 4.5.3.1.1)
      return min > 64 + 7 || max < 8
        ? undefined
        : n.chain((len) =>
            label(Math.min(64, Math.max(1, len - 7)), Math.min(64, Math.max(1, len - 7))).map((l) => `${l}@ex.com`),
          );
    case "uri":
    case "url":
    case "uri-reference":
      return max < 13
        ? undefined
        : n.chain((len) => label(Math.max(0, len - 13), Math.max(0, len - 13)).map((p) => `https://a.io/${p}`));
    case "hostname": // labels of at most 63 letters (RFC 1123 section 2.1), at most 253 in all
      return min > 253 || max < 1
        ? undefined
        : n.map((len) => {
            const labels: string[] = [];
            let left = Math.max(1, len);
            while (left > 0) {
              // Never leave room for a dot alone: a name does not end with an empty label here.
              const take = Math.min(63, left) - (left - Math.min(63, left) === 1 ? 1 : 0);
              labels.push("a".repeat(take));
              left -= take + 1;
            }
            return labels.join(".");
          });
    case "byte": {
      // base64 of k bytes is 4 * ceil(k / 3) characters (RFC 4648 section 4).
      const lo = Math.ceil(min / 4);
      const hi = Math.floor(max / 4);
      return lo > hi
        ? undefined
        : fc
            .integer({ min: lo, max: Math.min(hi, lo + 16) })
            .chain((q) =>
              fc.uint8Array({ minLength: 3 * q, maxLength: 3 * q }).map((b) => Buffer.from(b).toString("base64")),
            );
    }
    default:
      return undefined;
  }
}

/** The shape of the simplest patterns: one atom with a quantifier, anchored at both ends. */
const SIMPLE = /^\^(\[(?:\\.|[^\]\\])+\]|\\[dwDWS]|\.|[A-Za-z0-9_-])(\*|\+|\?|\{(\d+)(?:(,)(\d*))?\})\$$/;

/**
 * A pattern with its quantifier narrowed to the lengths (`^[a-f0-9]+$` with minLength 40 becomes
 * `^[a-f0-9]{40,80}$`), so a matching string of the right length is built, not hoped for.
 */
export function narrowPattern(pattern: string, min: number, max: number): string | undefined {
  const m = SIMPLE.exec(pattern);
  if (m === null) return undefined;
  const [, atom, quantifier, lo, comma, hi] = m;
  let [qlo, qhi] =
    quantifier === "*"
      ? [0, Infinity]
      : quantifier === "+"
        ? [1, Infinity]
        : quantifier === "?"
          ? [0, 1]
          : [Number(lo), comma === undefined ? Number(lo) : hi === "" ? Infinity : Number(hi)];
  qlo = Math.max(qlo, min);
  qhi = Math.min(qhi, max, qlo + 40);
  return qlo > qhi ? undefined : `^${atom}{${qlo},${qhi}}$`;
}

/**
 * Each pattern's arbitrary, made once: making one costs far more than drawing from it (fast-check
 * reads the pattern into slices), and a generator draws from the same patterns again and again. On
 * DigitalOcean's document, making them anew took three quarters of a run's time. Bounded, as a
 * long-lived process may read many documents.
 */
const patterns = new Map<string, fc.Arbitrary<string> | undefined>();

/** Strings matching a `pattern` (ECMA-262 with the u flag, as Ajv reads it), or undefined. */
export function patternArb(pattern: unknown): fc.Arbitrary<string> | undefined {
  if (typeof pattern !== "string") return undefined;
  if (patterns.has(pattern)) return patterns.get(pattern);
  if (patterns.size >= 4_096) patterns.clear();
  const made = makePatternArb(pattern);
  patterns.set(pattern, made);
  return made;
}

function makePatternArb(pattern: string): fc.Arbitrary<string> | undefined {
  // As the contract reads a pattern: with the `u` flag, else (an escape such as `\:` is an error in
  // Unicode mode, DigitalOcean's tag names) without it.
  for (const flags of ["u", ""])
    try {
      return fc.stringMatching(new RegExp(pattern, flags));
    } catch {
      // the next reading, else none
    }
  return undefined; // a pattern fast-check cannot generate from: candidates are checked anyway
}

/**
 * Whether text appended to a string that matches a pattern leaves it matching: true when the pattern
 * (searched, not anchored at both ends, as JSON Schema reads it) has no end anchor, lookaround or word
 * boundary that could see the added text. Conservative: a `$` anywhere, even escaped, says no.
 */
export function padKeepsMatch(pattern: string): boolean {
  return !/\$|\(\?<?[=!]|\\[bB]/.test(pattern);
}

/** How many matching strings are drawn for a pattern with lengths it cannot narrow: the first that fits is kept. */
const ATTEMPTS = 12;

/** Strings for a string schema: enum and const first, then format, pattern, and lengths, all by construction. */
export function stringArb(s: Schema, charset: Charset): fc.Arbitrary<unknown> {
  const min = typeof s.minLength === "number" ? Math.max(0, Math.ceil(s.minLength)) : 0;
  const max = typeof s.maxLength === "number" ? Math.floor(s.maxLength) : Infinity;
  const bounded = min > 0 || max !== Infinity;
  const fits = (v: string): boolean => {
    const n = codePointLength(v);
    return n >= min && n <= max;
  };
  const fitting = (arb: fc.Arbitrary<string>): fc.Arbitrary<string> =>
    fc.array(arb, { minLength: ATTEMPTS, maxLength: ATTEMPTS }).map((all) => all.find(fits) ?? all[0]!);
  if (typeof s.pattern === "string") {
    const narrowed = bounded ? narrowPattern(s.pattern, min, max) : undefined;
    const matching = patternArb(narrowed ?? s.pattern);
    if (matching === undefined) {
      // fast-check cannot read it: the lengths alone, and the contract judges the candidate
    } else if (!bounded || narrowed !== undefined) return matching;
    else if (!padKeepsMatch(s.pattern)) return fitting(matching);
    else {
      // A match followed by more text still matches: a short one is padded to the minimum.
      const pad = (v: string): string => v + "x".repeat(Math.max(0, min - codePointLength(v)));
      return fc
        .array(matching, { minLength: ATTEMPTS, maxLength: ATTEMPTS })
        .map((all) => all.find(fits) ?? all.map(pad).find(fits) ?? all[0]!);
    }
  }
  const formatted = formatArb(s.format);
  if (formatted !== undefined) {
    if (!bounded) return formatted;
    const sized = sizedFormat(s.format, min, max);
    if (sized === undefined) return fitting(formatted);
    // Drawn values where one fits, else one built to the lengths.
    return fc
      .tuple(fc.array(formatted, { minLength: ATTEMPTS, maxLength: ATTEMPTS }), sized)
      .map(([all, built]) => all.find(fits) ?? built);
  }
  return lengthArb(min, max, charset);
}
